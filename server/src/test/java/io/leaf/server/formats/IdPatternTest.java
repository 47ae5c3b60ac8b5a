package io.leaf.server.formats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.formats.IdPattern.DateUnit;
import io.leaf.server.formats.IdPattern.Literal;
import io.leaf.server.formats.IdPattern.SequenceField;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;

class IdPatternTest {

  private static final LocalDate DAY = LocalDate.of(2026, 11, 26);

  @Test
  void render_orderExample_datePaddedSequenceAndLuhnOverAllDigits() {
    IdPattern p = IdPattern.parse("ORD-{yyyyMMdd}-{seq:6}{check:luhn}");
    // Luhn over the 14 digits before the check, 20261126000457, is 7.
    assertEquals("ORD-20261126-0004577", p.render(DAY, 457), "the API's example pattern");
    assertEquals(20, p.valueLength(), "every value has the same length");
    assertEquals(new SequenceField(6, false), p.sequence(), "the sequence field");
    assertEquals(CheckCharacters.LUHN, p.check().orElseThrow(), "the check");
  }

  @Test
  void render_dateRunsAndShortYear_eachFieldZeroPadded() {
    assertEquals("2611-0000457", IdPattern.parse("{yyMM}-{seq:7}").render(DAY, 457), "yyMM");
    assertEquals(
        "2026/11/26#000000000000000001",
        IdPattern.parse("{yyyy}/{MM}/{dd}#{seq:18}").render(DAY, 1),
        "separate fields, width 18");
    assertEquals(
        "0305-7",
        IdPattern.parse("{MMdd}-{seq:1}").render(LocalDate.of(2027, 3, 5), 7),
        "month and day padded");
    assertEquals("9", IdPattern.parse("{seq:1}").render(DAY, 9), "a bare sequence");
  }

  @Test
  void render_doubledBraces_areLiteralBraces() {
    IdPattern p = IdPattern.parse("{{{seq:3}}}-}}{{");
    assertEquals("{042}-}{", p.render(DAY, 42), "{{ and }} are braces, even around a field");
    assertEquals(
        List.of(new Literal("{"), new SequenceField(3, false), new Literal("}-}{")),
        p.parts(),
        "the parts");
  }

  @Test
  void render_sequenceWiderThanField_throws() {
    IdPattern p = IdPattern.parse("{seq:3}");
    assertEquals("999", p.render(DAY, 999), "the last number of the width");
    assertThrows(IllegalArgumentException.class, () -> p.render(DAY, 1000), "never longer");
    assertThrows(IllegalArgumentException.class, () -> p.render(DAY, -1), "never negative");
  }

  @Test
  void parse_fieldsRecorded_showsReportsDateUnits() {
    IdPattern p = IdPattern.parse("X{yyyyMM}{seq:8:opaque}{check:mod97}");
    assertTrue(p.shows(DateUnit.YEAR) && p.shows(DateUnit.MONTH), "year and month shown");
    assertFalse(p.shows(DateUnit.DAY) || p.shows(DateUnit.YEAR_OF_CENTURY), "no day, no yy");
    assertTrue(p.sequence().opaque(), "opaque");
    assertEquals(1 + 6 + 8 + 2, p.valueLength(), "mod97 adds two digits");
    assertEquals(
        IdPattern.parse("X{yyyy}{MM}{seq:8:opaque}{check:mod97}"),
        p,
        "one run of date letters equals the same fields written apart");
  }

  @Test
  void parse_badPatterns_messageNamesPatternProblemAndPosition() {
    assertError("ORD-{seq:0}", 4, "width must be 1 to 18");
    assertError("ORD-{seq:19}", 4, "width must be 1 to 18");
    assertError("ORD-{seq:x}", 4, "width must be 1 to 18");
    assertError("{seq:5:opaque}", 0, "at least 6");
    assertError("{seq:6:secret}", 0, "{seq:W:opaque}");
    assertError("{seq:6}{seq:6}", 7, "second {seq}");
    assertError("ORD-{yyyy}", -1, "exactly one {seq:W}");
    assertError("", -1, "must not be empty");
    assertError("{seq:6}{yyyyy}", 8, "date letters 'yyyyy'");
    assertError("{seq:6}{yyyyMMM}", 12, "date letters 'MMM'");
    assertError("{yyyy}{seq:6}{yy}", 14, "year is shown twice");
    assertError("{dd}{seq:6}{dd}", 12, "day is shown twice");
    assertError("{HH}{seq:6}", 0, "unknown field {HH}");
    assertError("{seq:6}{}", 7, "unknown field {}");
    assertError("{seq:6}{check:damm}", 7, "unknown check \"damm\"; offered: luhn, verhoeff, mod97");
    assertError("{check:luhn}{seq:6}", 0, "must follow the {seq}");
    assertError("{seq:6}{check:luhn}{check:luhn}", 19, "second {check}");
    assertError("A{seq:6", 1, "never closed");
    assertError("A}{seq:6}", 1, "lone '}'");
    assertError("A\u0007{seq:6}", 1, "control character U+0007");
    assertError("x".repeat(250) + "{seq:6}", -1, "at most 256 characters");
  }

  @Test
  void match_renderedValue_readsEveryField() {
    IdPattern p = IdPattern.parse("ORD-{yyyyMMdd}-{seq:6}{check:luhn}");
    ShownFields f = p.match("orders", "ORD-20261126-0004577");
    assertEquals(new ShownFields(2026, -1, 11, 26, 457, true), f, "fields of the example");
    assertFalse(
        p.match("orders", "ORD-20261126-0004578").checkValid(),
        "a wrong check is read," + " not refused");
  }

  @Test
  void match_wrongShapes_throwNamingTheDifference() {
    IdPattern p = IdPattern.parse("ORD-{yyyyMMdd}-{seq:6}");
    assertMismatch(p, "ORD-20261126-00045", "has 18 characters, the format's values have 19");
    assertMismatch(p, "ORX-20261126-000457", "expected \"ORD-\" at position 0");
    assertMismatch(p, "ORD-2026112a-000457", "expected 2 digits (dd) at position 10");
    assertMismatch(p, "ORD-20261126-0004x7", "(the sequence) at position 13");
    assertMismatch(p, "ORD-20261326-000457", "month 13 is not a month");
    assertMismatch(p, "ORD-20260230-000457", "day 30 is not a day of month 2 in 2026");
    assertMismatch(p, "ORD-20250229-000457", "day 29 is not a day of month 2 in 2025");
    assertEquals(
        29,
        IdPattern.parse("{MMdd}{seq:2}").match("t", "022901").day(),
        "without the year, February 29 may exist");
    assertMismatch(IdPattern.parse("{seq:2}{check:mod97}"), "121x", "(the mod97 check)");
  }

  private static void assertError(String pattern, int position, String fragment) {
    InvalidFormatException e =
        assertThrows(InvalidFormatException.class, () -> IdPattern.parse(pattern), pattern);
    assertEquals(position, e.position(), "position of: " + e.getMessage());
    assertTrue(
        e.getMessage().contains(fragment), "expected '" + fragment + "' in: " + e.getMessage());
    assertTrue(e.getMessage().startsWith("pattern \""), "names the pattern: " + e.getMessage());
    assertEquals(pattern, e.pattern(), "carries the pattern");
  }

  private static void assertMismatch(IdPattern p, String value, String fragment) {
    ValueMismatchException e =
        assertThrows(ValueMismatchException.class, () -> p.match("orders", value), value);
    assertTrue(
        e.getMessage().contains(fragment), "expected '" + fragment + "' in: " + e.getMessage());
    assertTrue(
        e.getMessage().contains("\"orders\"") && e.getMessage().contains(value),
        "names the tag and the value: " + e.getMessage());
  }
}
