package io.leaf.server.formats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FormattedIdsTest {

  private static final FormatKey KEY =
      FormatKey.ofBytes(HexFormat.of().parseHex("2B7E151628AED2A6ABF7158809CF4F3C"));
  private static final FormatKey OTHER_KEY =
      FormatKey.ofBytes(HexFormat.of().parseHex("000102030405060708090A0B0C0D0E0F"));

  /** 2026-11-26 12:00 in Shanghai. */
  private static final Instant NOON = Instant.parse("2026-11-26T04:00:00Z");

  @Test
  void render_orderFormat_showsThePeriodsDateAndSequence() {
    FormattedIds ids = plain("ORD-{yyyyMMdd}-{seq:6}{check:luhn}", Reset.DAILY);
    assertEquals("20261126", ids.periodOf(NOON).key(), "the row to take from");
    assertEquals("ORD-20261126-0004577", ids.render(457, NOON), "the example value");
  }

  @Test
  void render_acrossMidnightInZone_newPeriodAndNewDate() {
    FormattedIds ids = plain("{yyyyMMdd}{seq:4}", Reset.DAILY);
    Instant midnight = Instant.parse("2026-11-26T16:00:00Z"); // 00:00 on the 27th in Shanghai
    Instant justBefore = midnight.minusMillis(1);
    assertEquals("20261126", ids.periodOf(justBefore).key(), "before midnight");
    assertEquals("202611269999", ids.render(9999, justBefore), "the 26th's last number");
    assertEquals("20261127", ids.periodOf(midnight).key(), "at midnight");
    assertEquals("202611270001", ids.render(1, midnight), "the 27th starts again at 1");
    assertEquals(
        "202611260002",
        ids.render(2, justBefore),
        "the date follows the instant given, even after a later one was rendered");
  }

  @Test
  void render_withPeriodItDoesNotHold_refused() {
    FormattedIds ids = plain("{yyyyMMdd}{seq:4}", Reset.DAILY);
    Instant midnight = Instant.parse("2026-11-26T16:00:00Z");
    Period yesterday = ids.periodOf(midnight.minusSeconds(1));
    assertEquals(
        "202611260007",
        ids.render(7, yesterday, midnight.minusSeconds(1)),
        "the kept period and the instant agree");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ids.render(7, yesterday, midnight),
            "a row of the 26th must not show the 27th");
    assertTrue(
        e.getMessage().contains("20261127") && e.getMessage().contains("20261126"), e.getMessage());
    Period utc = Reset.DAILY.periodOf(midnight.minusSeconds(1), ZoneOffset.UTC);
    assertThrows(
        IllegalArgumentException.class,
        () -> ids.render(7, utc, midnight.minusSeconds(1)),
        "a period of another zone");
  }

  @Test
  void render_sequencePastTheWidth_outOfRangeNamingTagPeriodAndWidth() {
    FormattedIds ids = plain("ORD-{yyyyMMdd}-{seq:4}", Reset.DAILY);
    assertEquals(9999, ids.maxSequence(), "10^4 - 1");
    assertEquals("ORD-20261126-9999", ids.render(9999, NOON), "the last number fits");
    WidthExhaustedException e =
        assertThrows(
            WidthExhaustedException.class,
            () -> ids.render(10_000, NOON),
            "never a fifth digit, never a wrap");
    assertEquals("orders", e.tag(), "tag");
    assertEquals("20261126", e.periodKey(), "period");
    assertEquals(4, e.width(), "width");
    assertTrue(
        e.getMessage().contains("\"orders\"")
            && e.getMessage().contains("20261126")
            && e.getMessage().contains("width of 4 digits"),
        e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> ids.render(-1, NOON), "negative");
  }

  @Test
  void parse_plainValue_roundTripsPeriodAndSequence() {
    FormattedIds ids = plain("SO/{yyyy}/{MM}/{seq:7}{check:verhoeff}", Reset.MONTHLY);
    for (long seq : new long[] {0, 1, 457, 9_999_999}) {
      String value = ids.render(seq, NOON);
      ParsedId parsed = ids.parse(value, false);
      assertEquals(new ParsedId("202611", OptionalLong.of(seq), true), parsed, value);
    }
    String value = ids.render(457, NOON);
    char check = value.charAt(value.length() - 1);
    String typo = value.substring(0, value.length() - 1) + (char) ('0' + (check - '0' + 1) % 10);
    assertEquals(
        new ParsedId("202611", OptionalLong.of(457), false),
        ids.parse(typo, false),
        "a wrong check is reported, with what the value shows: " + typo);
  }

  @Test
  void parse_opaqueValue_decodedOnlyWhenRevealed() {
    FormattedIds ids = opaque("{yyyyMMdd}{seq:8:opaque}{check:luhn}", KEY);
    Set<String> values = new HashSet<>();
    for (long seq = 1; seq <= 2_000; seq++) {
      String value = ids.render(seq, NOON);
      assertEquals(17, value.length(), "8 + 8 digits + check: " + value);
      assertTrue(values.add(value), "unique: " + value);
      assertEquals(OptionalLong.of(seq), ids.parse(value, true).sequence(), "decodes " + value);
      ParsedId hidden = ids.parse(value, false);
      assertEquals(
          new ParsedId("20261126", OptionalLong.empty(), true),
          hidden,
          "without the right to reveal, no sequence");
    }
    assertFalse(
        ids.render(1, NOON).startsWith("2026112600000"),
        "opaque numbers do not count" + " up from zero: " + ids.render(1, NOON));
  }

  @Test
  void parse_opaqueWithWrongKey_decodesAnotherSequence() {
    FormattedIds right = opaque("{yyyyMMdd}{seq:8:opaque}", KEY);
    FormattedIds wrong = opaque("{yyyyMMdd}{seq:8:opaque}", OTHER_KEY);
    String value = right.render(457, NOON);
    assertNotEquals(
        OptionalLong.of(457),
        wrong.parse(value, true).sequence(),
        "another key cannot read the sequence");
    assertNotEquals(value, wrong.render(457, NOON), "another key shows another number");
  }

  @Test
  void of_opaqueFormatAndKeyMismatch_refused() {
    FormatSpec spec = FormatSpec.of("{seq:6:opaque}", Reset.NEVER, "UTC");
    FormatKeyMismatchException differs =
        assertThrows(
            FormatKeyMismatchException.class,
            () -> FormattedIds.of("orders", spec, Optional.of(OTHER_KEY), KEY.fingerprint()));
    assertTrue(
        differs.getMessage().contains(KEY.fingerprint())
            && differs.getMessage().contains(OTHER_KEY.fingerprint()),
        differs.getMessage());
    assertThrows(
        FormatKeyMismatchException.class,
        () -> FormattedIds.of("orders", spec, Optional.empty(), KEY.fingerprint()),
        "no key");
    assertThrows(
        FormatKeyMismatchException.class,
        () -> FormattedIds.fingerprintToStore(spec, Optional.empty()),
        "no key to store");
    assertEquals(
        KEY.fingerprint(),
        FormattedIds.fingerprintToStore(spec, Optional.of(KEY)),
        "the server key's fingerprint is stored");
    assertEquals(
        "",
        FormattedIds.fingerprintToStore(
            FormatSpec.of("{seq:6}", Reset.NEVER, ""), Optional.of(KEY)),
        "a plain format stores none");
  }

  @Test
  void parse_valueOfAnotherShape_invalid() {
    FormattedIds ids = plain("ORD-{yyyyMMdd}-{seq:6}{check:luhn}", Reset.DAILY);
    assertThrows(
        ValueMismatchException.class,
        () -> ids.parse("ORD-20261126-000457", false),
        "the check is missing");
    assertThrows(ValueMismatchException.class, () -> ids.parse("12345", false), "a bare number");
  }

  @Test
  void maxStep_onePercentOfTheWidth_atLeastOne() {
    assertEquals(1, FormattedIds.maxStep(1), "10 numbers: step 1");
    assertEquals(1, FormattedIds.maxStep(2), "100 numbers: step 1");
    assertEquals(10, FormattedIds.maxStep(3), "1,000 numbers");
    assertEquals(10_000, FormattedIds.maxStep(6), "1,000,000 numbers");
    assertEquals(10_000_000_000_000_000L, FormattedIds.maxStep(18), "10^18 numbers");
    assertEquals(10_000, plain("{seq:6}", Reset.NEVER).maxStep(), "of the format's width");
    assertThrows(IllegalArgumentException.class, () -> FormattedIds.maxStep(0), "width 0");
  }

  private static FormattedIds plain(String pattern, Reset reset) {
    return FormattedIds.of(
        "orders", FormatSpec.of(pattern, reset, "Asia/Shanghai"), Optional.empty(), "");
  }

  private static FormattedIds opaque(String pattern, FormatKey key) {
    return FormattedIds.of(
        "orders",
        FormatSpec.of(pattern, Reset.DAILY, "Asia/Shanghai"),
        Optional.of(key),
        key.fingerprint());
  }
}
