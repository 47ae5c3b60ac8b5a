package io.leaf.server.formats;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class FormatSpecTest {

  @Test
  void of_resetFinerThanDateFields_refused() {
    assertRefused(
        "ORD-{yyyyMM}-{seq:6}", Reset.DAILY, "DAILY reset needs the pattern to show {dd}");
    assertRefused("ORD-{MMdd}-{seq:6}", Reset.DAILY, "needs the pattern to show {yyyy}");
    assertRefused("ORD-{yyyy}-{seq:6}", Reset.MONTHLY, "show {MM}");
    assertRefused("ORD-{seq:6}", Reset.YEARLY, "show {yyyy}");
    assertRefused("ORD-{yyMMdd}-{seq:6}", Reset.DAILY, "{yy} repeats every 100 years");
    assertRefused("ORD-{yy}-{seq:6}", Reset.YEARLY, "{yy} repeats every 100 years");
  }

  @Test
  void of_dateFieldsFinerThanReset_accepted() {
    assertDoesNotThrow(() -> FormatSpec.of("{yyyyMMdd}{seq:6}", Reset.MONTHLY, "UTC"), "day shown");
    assertDoesNotThrow(() -> FormatSpec.of("{yyyyMMdd}{seq:6}", Reset.YEARLY, "UTC"), "monthly");
    assertDoesNotThrow(
        () -> FormatSpec.of("{yyMMdd}{seq:9}", Reset.NEVER, "UTC"),
        "yy is decoration when nothing resets");
    assertDoesNotThrow(
        () -> FormatSpec.of("{dd}{yyyy}{MM}{seq:6}", Reset.DAILY, "UTC"), "any order");
  }

  @Test
  void of_timeZone_defaultsToUtcAndRefusesUnknownNames() {
    assertEquals(ZoneOffset.UTC, FormatSpec.of("{seq:6}", Reset.NEVER, "").zone(), "empty");
    assertEquals(
        ZoneId.of("Asia/Shanghai"),
        FormatSpec.of("{seq:6}", Reset.NEVER, "Asia/Shanghai").zone(),
        "an IANA name");
    InvalidFormatException e =
        assertThrows(
            InvalidFormatException.class,
            () -> FormatSpec.of("{seq:6}", Reset.NEVER, "Mars/Olympus"),
            "unknown zone");
    assertTrue(
        e.getMessage().contains("time_zone \"Mars/Olympus\" is not a known time zone"),
        e.getMessage());
  }

  private static void assertRefused(String pattern, Reset reset, String fragment) {
    InvalidFormatException e =
        assertThrows(
            InvalidFormatException.class,
            () -> FormatSpec.of(pattern, reset, "UTC"),
            pattern + " " + reset);
    assertTrue(
        e.getMessage().contains(fragment), "expected '" + fragment + "' in: " + e.getMessage());
    assertTrue(e.getMessage().contains(pattern), "names the pattern: " + e.getMessage());
    assertEquals(-1, e.position(), "the format as a whole");
  }
}
