package io.leaf.server.formats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.LocalDate;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class DatedPatternTest {

  private static final List<String> PATTERNS =
      List.of(
          "ORD-{yyyyMMdd}-{seq:10}",
          "ORD-{yyyyMMdd}-{seq:6}{check:luhn}",
          "{seq:10:opaque}",
          "{seq:1}",
          "{yy}{MM}{seq:7}{check:verhoeff}",
          "A{{{dd}}}{seq:4}-{MM}/{yyyy}x{check:mod97}-!",
          "{seq:18}-{yyyyMMdd}",
          "{yyyy}/{MM}/{dd}#{seq:12}#");
  private static final List<LocalDate> DATES =
      List.of(
          LocalDate.of(2026, 11, 26),
          LocalDate.of(2000, 1, 1),
          LocalDate.of(9999, 12, 31),
          LocalDate.of(0, 2, 29),
          LocalDate.of(2027, 3, 5));

  @Test
  void render_everyPatternDateAndSequence_sameAsIdPatternRender() {
    Random random = new Random(26);
    for (String source : PATTERNS) {
      IdPattern pattern = IdPattern.parse(source);
      long max = pattern.sequence().maxSequence();
      for (LocalDate date : DATES) {
        DatedPattern dated = DatedPattern.of(pattern, date);
        assertNotNull(dated, source + " on " + date);
        long[] sequences = {
          0,
          1,
          9,
          10,
          max / 10,
          max / 10 + 1,
          max - 1,
          max,
          Math.floorMod(random.nextLong(), max + 1),
          Math.floorMod(random.nextLong(), max + 1)
        };
        for (long s : sequences) {
          if (s > max) {
            continue;
          }
          assertEquals(
              pattern.render(date, s), dated.render(s), source + " on " + date + ", sequence " + s);
        }
      }
    }
  }

  @Test
  void render_sequenceOutsideWidth_throwsAsIdPatternRender() {
    IdPattern pattern = IdPattern.parse("ORD-{yyyyMMdd}-{seq:3}");
    DatedPattern dated = DatedPattern.of(pattern, DATES.get(0));
    for (long s : new long[] {-1, 1000, Long.MAX_VALUE}) {
      IllegalArgumentException mine =
          assertThrows(IllegalArgumentException.class, () -> dated.render(s));
      IllegalArgumentException theirs =
          assertThrows(IllegalArgumentException.class, () -> pattern.render(DATES.get(0), s));
      assertEquals(theirs.getMessage(), mine.getMessage(), "sequence " + s);
    }
  }

  @Test
  void of_yearPastFourDigits_isNullSoRenderReportsIt() {
    LocalDate far = LocalDate.of(10_000, 1, 1);
    assertNull(DatedPattern.of(IdPattern.parse("{yyyy}{seq:6}"), far), "yyyy cannot show 10000");
    assertEquals(
        "00000007",
        DatedPattern.of(IdPattern.parse("{yy}{seq:6}"), far).render(7),
        "yy shows 00 of 10000");
  }

  @Test
  void appendPadded_inPlaceDigits_sameAsLongToStringPadded() {
    long[] values = {0, 7, 10, 99, 100, 123_456_789, 999_999_999_999_999_999L, -5, Long.MAX_VALUE};
    for (long v : values) {
      for (int width = 0; width <= 20; width++) {
        StringBuilder b = new StringBuilder("x");
        IdPattern.appendPadded(b, v, width);
        String digits = Long.toString(v);
        String expected = "x" + "0".repeat(Math.max(0, width - digits.length())) + digits;
        assertEquals(expected, b.toString(), v + " in " + width);
      }
    }
  }
}
