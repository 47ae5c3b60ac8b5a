package io.leaf.server.formats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class PeriodTest {

  private static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");
  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
  private static final ZoneId SAO_PAULO = ZoneId.of("America/Sao_Paulo");

  @Test
  void periodOf_aroundMidnightInZone_switchesAtTheZonesMidnight() {
    // Midnight of 2026-11-27 in Shanghai (UTC+8) is 16:00 UTC on the 26th.
    Instant midnight = Instant.parse("2026-11-26T16:00:00Z");
    Period before = Reset.DAILY.periodOf(midnight.minusNanos(1), SHANGHAI);
    Period after = Reset.DAILY.periodOf(midnight, SHANGHAI);
    assertEquals("20261126", before.key(), "the last nanosecond of the 26th in Shanghai");
    assertEquals("20261127", after.key(), "midnight belongs to the new day");
    assertEquals(midnight, before.end(), "the day ends at the zone's midnight");
    assertEquals(midnight, after.start(), "the next starts there");
    assertEquals(after, before.next().orElseThrow(), "next() is the following day");
    assertEquals(
        "20261126",
        Reset.DAILY.periodOf(midnight, ZoneOffset.UTC).key(),
        "in UTC the same instant is still the 26th");
  }

  @Test
  void periodOf_monthlyAndYearly_keysAndBoundaries() {
    Instant at = Instant.parse("2026-12-31T23:30:00Z");
    Period month = Reset.MONTHLY.periodOf(at, BERLIN);
    assertEquals("202701", month.key(), "23:30 UTC is 00:30 on January 1st in Berlin");
    assertEquals(Instant.parse("2026-12-31T23:00:00Z"), month.start(), "Berlin's new year");
    assertEquals(Instant.parse("2027-01-31T23:00:00Z"), month.end(), "February 1st in Berlin");
    Period year = Reset.YEARLY.periodOf(at, ZoneOffset.UTC);
    assertEquals("2026", year.key(), "still 2026 in UTC");
    assertEquals("2027", year.next().orElseThrow().key(), "next year");
    assertEquals(Instant.parse("2027-01-01T00:00:00Z"), year.end(), "ends at UTC new year");
  }

  @Test
  void periodOf_berlinDstChanges_daysOf23And25Hours() {
    Period spring = Reset.DAILY.periodOf(Instant.parse("2026-03-29T12:00:00Z"), BERLIN);
    assertEquals("20260329", spring.key(), "the spring-forward day");
    assertEquals(Instant.parse("2026-03-28T23:00:00Z"), spring.start(), "starts at CET midnight");
    assertEquals(Instant.parse("2026-03-29T22:00:00Z"), spring.end(), "ends at CEST midnight");
    assertEquals(Duration.ofHours(23), Duration.between(spring.start(), spring.end()), "23 h");
    Period autumn = Reset.DAILY.periodOf(Instant.parse("2026-10-25T12:00:00Z"), BERLIN);
    assertEquals(Duration.ofHours(25), Duration.between(autumn.start(), autumn.end()), "25 h");
    assertEquals(
        "20261025",
        Reset.DAILY.periodOf(Instant.parse("2026-10-25T00:30:00Z"), BERLIN).key(),
        "02:30 CEST, before the repeated hour");
    assertEquals(
        "20261025",
        Reset.DAILY.periodOf(Instant.parse("2026-10-25T01:30:00Z"), BERLIN).key(),
        "02:30 CET, the repeated hour");
  }

  @Test
  void periodOf_saoPauloMidnightInDstGap_dayStartsAtOneOClock() {
    // On 2018-11-04 Sao Paulo skipped from 00:00 to 01:00 (-03:00 to -02:00): no midnight.
    Period gapDay = Reset.DAILY.periodOf(Instant.parse("2018-11-04T12:00:00Z"), SAO_PAULO);
    assertEquals(Instant.parse("2018-11-04T03:00:00Z"), gapDay.start(), "01:00 -02:00");
    assertEquals(Duration.ofHours(23), Duration.between(gapDay.start(), gapDay.end()), "23 h");
    Period dayBefore = Reset.DAILY.periodOf(Instant.parse("2018-11-04T02:59:59Z"), SAO_PAULO);
    assertEquals("20181103", dayBefore.key(), "23:59:59 -03:00 is still the 3rd");
    assertEquals(gapDay.start(), dayBefore.end(), "no instant between the two days");
  }

  @Test
  void periodOfKey_everyReset_invertsKey() {
    Instant at = Instant.parse("2026-11-26T10:15:00Z");
    for (Reset r : Reset.values()) {
      Period p = r.periodOf(at, BERLIN);
      assertEquals(p, r.periodOfKey(p.key(), BERLIN), "key of " + r + " reads back");
      assertTrue(p.contains(at), r + " period holds its instant");
      assertFalse(p.contains(p.end()), r + " end is exclusive");
    }
    assertThrows(
        IllegalArgumentException.class,
        () -> Reset.DAILY.periodOfKey("20261131", BERLIN),
        "November 31st");
    assertThrows(
        IllegalArgumentException.class,
        () -> Reset.MONTHLY.periodOfKey("20261126", BERLIN),
        "a daily key for a monthly reset");
    assertThrows(
        IllegalArgumentException.class,
        () -> Reset.NEVER.periodOfKey("2026", BERLIN),
        "NEVER has only the empty key");
  }

  @Test
  void periodOf_never_allTimeWithoutNext() {
    Period p = Reset.NEVER.periodOf(Instant.parse("2026-11-26T10:15:00Z"), SHANGHAI);
    assertEquals("", p.key(), "empty key");
    assertEquals(Instant.MIN, p.start(), "from the beginning");
    assertEquals(Instant.MAX, p.end(), "never ends");
    assertTrue(p.next().isEmpty(), "no next period");
  }
}
