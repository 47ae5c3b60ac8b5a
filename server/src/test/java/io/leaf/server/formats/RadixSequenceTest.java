package io.leaf.server.formats;

import static io.leaf.server.testing.FormattedServer.format;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.leaf.server.testing.DatabaseKind;
import io.leaf.server.testing.FakeWallClock;
import io.leaf.server.testing.FormattedServer;
import io.leaf.server.testing.TestDatabase;
import io.leaf.v1.FormattedIdParts;
import io.leaf.v1.ParseFormattedIdRequest;
import io.leaf.v1.Reset;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@code {seq:W:base36}} and {@code {seq:W:base62}}: fixed width, exact inverse, order kept. */
class RadixSequenceTest {

  private static final LocalDate DAY = LocalDate.of(2026, 11, 26);

  @Test
  void render_base36AndBase62_fixedWidthKnownValues() {
    IdPattern b36 = IdPattern.parse("U-{seq:4:base36}");
    assertEquals("U-0000", b36.render(DAY, 0), "zero");
    assertEquals("U-000Z", b36.render(DAY, 35), "35");
    assertEquals("U-0010", b36.render(DAY, 36), "36");
    assertEquals("U-ZZZZ", b36.render(DAY, 36L * 36 * 36 * 36 - 1), "the largest");
    IdPattern b62 = IdPattern.parse("{seq:3:base62}");
    assertEquals("00z", b62.render(DAY, 61), "61 is z");
    assertEquals("010", b62.render(DAY, 62), "62");
    assertEquals("zzz", b62.render(DAY, 62L * 62 * 62 - 1), "the largest");
    assertEquals(36L * 36 * 36 * 36 - 1, b36.sequence().maxSequence(), "36^4 - 1");
  }

  @Test
  void render_pastTheWidth_refused() {
    IdPattern b36 = IdPattern.parse("{seq:2:base36}");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> b36.render(DAY, 36 * 36));
    assertTrue(e.getMessage().contains("base-36"), e.getMessage());
  }

  @Test
  void match_randomValues_roundTripAndAsciiOrderIsNumericOrder() {
    Random random = new Random(11);
    for (String p :
        List.of(
            "X{yyyyMMdd}{seq:12:base36}",
            "{seq:10:base62}-Z",
            "{seq:5:base62}",
            "{seq:1:base36}")) {
      IdPattern pattern = IdPattern.parse(p);
      long max = pattern.sequence().maxSequence();
      for (int i = 0; i < 5_000; i++) {
        long a = Math.floorMod(random.nextLong(), max + 1);
        long b = Math.floorMod(random.nextLong(), max + 1);
        String va = pattern.render(DAY, a);
        String vb = pattern.render(DAY, b);
        assertEquals(pattern.valueLength(), va.length(), p + ": fixed width");
        assertEquals(a, pattern.match("t", va).shownSequence(), p + ": parsed back " + va);
        assertEquals(
            Long.signum(Long.compare(a, b)),
            Integer.signum(va.compareTo(vb)),
            p + ": " + va + " vs " + vb + " sort as " + a + " vs " + b);
      }
    }
  }

  @Test
  void match_characterOutsideTheRadix_mismatch() {
    IdPattern b36 = IdPattern.parse("{seq:3:base36}");
    ValueMismatchException e =
        assertThrows(ValueMismatchException.class, () -> b36.match("t", "0a1"));
    assertTrue(e.getMessage().contains("base-36 digits"), e.getMessage());
    assertThrows(
        ValueMismatchException.class, () -> IdPattern.parse("{seq:3:base62}").match("t", "0-1"));
  }

  @Test
  void parse_widthsAndChecks_refusedWhereTheyCannotHold() {
    IdPattern.parse("{seq:12:base36}");
    IdPattern.parse("{seq:10:base62}");
    InvalidFormatException wide =
        assertThrows(InvalidFormatException.class, () -> IdPattern.parse("{seq:13:base36}"));
    assertTrue(wide.getMessage().contains("1 to 12"), wide.getMessage());
    assertThrows(InvalidFormatException.class, () -> IdPattern.parse("{seq:11:base62}"));
    assertThrows(InvalidFormatException.class, () -> IdPattern.parse("{seq:4:base16}"));
    InvalidFormatException check =
        assertThrows(
            InvalidFormatException.class, () -> IdPattern.parse("{seq:6:base36}{check:luhn}"));
    assertTrue(check.getMessage().contains("decimal digits only"), check.getMessage());
  }

  @Test
  void assess_radixChanges_refusedUnlessValuesDisjoint() {
    FormatChanges.Verdict v =
        FormatChanges.assess(plain("{seq:6}"), "", plain("{seq:6:base36}"), "");
    assertFalse(v.safe(), "000123 is a value of both: " + v.reason());
    assertTrue(v.reason().contains("radix"), v.reason());
    v = FormatChanges.assess(plain("{seq:4:base36}"), "", plain("A{seq:3}"), "");
    assertFalse(v.safe(), "A001 is a base-36 value too: " + v.reason());
    v = FormatChanges.assess(plain("{seq:4:base62}"), "", plain("-{seq:3:base62}"), "");
    assertTrue(v.safe(), "'-' is no base-62 digit: " + v.reason());
  }

  private static FormatSpec plain(String pattern) {
    return FormatSpec.of(pattern, io.leaf.server.formats.Reset.NEVER, "UTC");
  }

  @Test
  void server_oneBase36Character_36ValuesThenOutOfRangeAndParsedBack() throws Exception {
    long now = Instant.parse("2026-11-26T10:00:00Z").toEpochMilli();
    try (TestDatabase db = DatabaseKind.H2.open();
        FormattedServer s = FormattedServer.start(db, new FakeWallClock(now), null)) {
      s.createTag("short", 5, format("S{seq:1:base36}", Reset.NEVER, ""));
      List<String> values = new ArrayList<>();
      StatusRuntimeException end = null;
      while (end == null && values.size() < 100) {
        try {
          values.add(s.next("short"));
        } catch (StatusRuntimeException e) {
          end = e;
        }
      }
      Set<String> distinct = new HashSet<>(values);
      assertEquals(values.size(), distinct.size(), "no repeats: " + values);
      assertTrue(
          values.size() >= 30 && values.size() <= 35,
          "the first sequence is 1, and the" + " last segments may be cut short: " + values);
      assertTrue(values.stream().allMatch(v -> v.matches("S[0-9A-Z]")), values.toString());
      assertEquals(Status.Code.OUT_OF_RANGE, end.getStatus().getCode(), end.toString());
      FormattedIdParts parts =
          s.leaf.blocking.parseFormattedId(
              ParseFormattedIdRequest.newBuilder().setBizTag("short").setValue("SZ").build());
      assertEquals(35, parts.getSequence(), "Z is 35");
    }
  }
}
