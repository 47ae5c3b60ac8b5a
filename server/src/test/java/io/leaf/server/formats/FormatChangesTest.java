package io.leaf.server.formats;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.formats.FormatChanges.Verdict;
import org.junit.jupiter.api.Test;

class FormatChangesTest {

  private static final String KEY_A = "1111111111111111";
  private static final String KEY_B = "2222222222222222";

  @Test
  void assess_newPrefixOrSeparator_safe() {
    assertSafe("ORD-{yyyyMMdd}-{seq:6}", "SO-{yyyyMMdd}-{seq:6}", "19 characters, new ones 18");
    assertSafe("ORD-{yyyyMMdd}-{seq:6}", "ORX-{yyyyMMdd}-{seq:6}", "at position 2");
    assertSafe("ORD-{yyyyMMdd}-{seq:6}", "ORD-{yyyyMMdd}/{seq:6}", "at position 12");
    assertSafe("{seq:6}", "A{seq:5}", "a digit, new ones \"A\"");
  }

  @Test
  void assess_disjointValues_safeWhateverElseChanges() {
    Verdict v =
        FormatChanges.assess(
            spec("ORD-{yyyyMMdd}-{seq:6}", Reset.DAILY, "UTC"),
            "",
            spec("SO-{yyyyMM}-{seq:8:opaque}", Reset.MONTHLY, "Asia/Shanghai"),
            KEY_B);
    assertTrue(v.safe(), v.reason());
  }

  @Test
  void assess_sameNumbering_safe() {
    assertSafe("ORD-{yyyyMMdd}-{seq:6}", "ORD-{yyyy}{MM}{dd}-{seq:6}", "unchanged");
    Verdict v =
        FormatChanges.assess(
            spec("{seq:6}", Reset.NEVER, "UTC"),
            "",
            spec("{seq:6}", Reset.NEVER, "Europe/Berlin"),
            "");
    assertTrue(v.safe(), "no dates, no reset: the zone plays no part: " + v.reason());
  }

  @Test
  void assess_overlappingValues_refusedNamingTheChange() {
    assertUnsafe(
        spec("{yyyyMMdd}{seq:6}", Reset.DAILY, "UTC"),
        "",
        spec("{yyyyMMdd}{seq:6}", Reset.MONTHLY, "UTC"),
        "",
        "reset changes from DAILY to MONTHLY");
    assertUnsafe(
        spec("{yyyyMMdd}{seq:6}", Reset.DAILY, "UTC"),
        "",
        spec("{yyyyMMdd}{seq:6}", Reset.DAILY, "Asia/Shanghai"),
        "",
        "time zone changes");
    assertUnsafe(
        spec("{seq:8:opaque}", Reset.NEVER, "UTC"),
        KEY_A,
        spec("{seq:8:opaque}", Reset.NEVER, "UTC"),
        KEY_B,
        "key changes");
    assertUnsafe(
        spec("{seq:8}", Reset.NEVER, "UTC"),
        "",
        spec("{seq:8:opaque}", Reset.NEVER, "UTC"),
        KEY_A,
        "becomes opaque");
    assertUnsafe(
        spec("1{seq:6}", Reset.NEVER, "UTC"),
        "",
        spec("{seq:7}", Reset.NEVER, "UTC"),
        "",
        "width changes from 6 to 7");
    assertUnsafe(
        spec("{seq:6}{check:luhn}", Reset.NEVER, "UTC"),
        "",
        spec("{seq:6}{check:verhoeff}", Reset.NEVER, "UTC"),
        "",
        "fields or literals change");
    assertUnsafe(
        spec("{yyyyMMdd}{seq:6}", Reset.NEVER, "UTC"),
        "",
        spec("{seq:6}{yyyyMMdd}", Reset.NEVER, "UTC"),
        "",
        "fields or literals change");
  }

  private static void assertSafe(String from, String to, String fragment) {
    Verdict v =
        FormatChanges.assess(spec(from, Reset.NEVER, "UTC"), "", spec(to, Reset.NEVER, "UTC"), "");
    assertTrue(v.safe(), from + " -> " + to + ": " + v.reason());
    assertTrue(v.reason().contains(fragment), "expected '" + fragment + "' in: " + v.reason());
  }

  private static void assertUnsafe(
      FormatSpec from, String fromKey, FormatSpec to, String toKey, String fragment) {
    Verdict v = FormatChanges.assess(from, fromKey, to, toKey);
    assertFalse(v.safe(), from.pattern() + " -> " + to.pattern() + ": " + v.reason());
    assertTrue(v.reason().contains(fragment), "expected '" + fragment + "' in: " + v.reason());
  }

  private static FormatSpec spec(String pattern, Reset reset, String zone) {
    return FormatSpec.of(pattern, reset, zone);
  }
}
