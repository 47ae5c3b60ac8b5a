package io.leaf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.bench.FormattedTags.Reading;
import io.leaf.server.formats.FormatKey;
import io.leaf.server.formats.FormatSpec;
import io.leaf.server.formats.Reset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The formatted-ID rows' plumbing: formats, key file, checks, order and verdicts; no timing. */
class FormattedRowsTest {

  @Test
  void formats_areValidForTheServer() {
    for (FormattedTags.Format f : FormattedTags.FORMATS) {
      FormatSpec spec = FormatSpec.of(f.pattern(), Reset.valueOf(f.reset().name()), "UTC");
      assertEquals(f == FormattedTags.OPAQUE, spec.opaque(), "opaque flag of " + f);
    }
  }

  @Test
  void keyFile_holds64HexDigitsTheServerAccepts_ownerOnly(@TempDir Path dir) throws Exception {
    Path file = FormattedTags.writeKeyFile(dir);

    FormatKey key = FormatKey.fromFileContent(Files.readAllBytes(file));
    assertEquals(256, key.bits(), "an AES-256 key");
    assertEquals(
        Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE),
        Files.getPosixFilePermissions(file),
        "readable by its owner only");
    assertEquals(
        Files.readString(FormattedTags.writeKeyFile(dir)),
        Files.readString(file),
        "the same key every run, so a reused --db-url keeps its fingerprint");
  }

  @Test
  void check_enoughNumbersIssued_passes() {
    assertTrue(
        FormattedTags.check(
            "x", 100, new Reading("20261126", 10), new Reading("20261126", 111), false),
        "101 taken, 1 by the second reading");
  }

  @Test
  void check_fewerNumbersThanCalls_failsNamingBoth() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                FormattedTags.check(
                    "NextFormattedId plain",
                    100,
                    new Reading("20261126", 10),
                    new Reading("20261126", 110),
                    false));
    assertTrue(
        e.getMessage().contains("100 NextFormattedId plain calls")
            && e.getMessage().contains("issued 99"),
        e.getMessage());
  }

  @Test
  void check_noCalls_failsUnlessRunsMayBeEmpty() {
    Reading before = new Reading("", 5);
    Reading after = new Reading("", 6);
    assertThrows(
        IllegalStateException.class, () -> FormattedTags.check("NextId", 0, before, after, false));
    assertTrue(FormattedTags.check("NextId", 0, before, after, true), "--quick's empty run");
  }

  @Test
  void check_periodChanged_isNotChecked() {
    assertFalse(
        FormattedTags.check(
            "x", 1_000, new Reading("20261126", 900_000), new Reading("20261127", 3), false),
        "a new day's sequence starts again");
  }

  @Test
  void rotated_givesEachCallEachPlaceInTurn() {
    List<String> calls = List.of("a", "b", "c");
    assertEquals(List.of("a", "b", "c"), RoundRatios.rotated(calls, 1));
    assertEquals(List.of("b", "c", "a"), RoundRatios.rotated(calls, 2));
    assertEquals(List.of("c", "a", "b"), RoundRatios.rotated(calls, 3));
    assertEquals(List.of("a", "b", "c"), RoundRatios.rotated(calls, 4));
  }

  @Test
  void perRound_dividesWithinEachRound() {
    assertEquals(
        List.of(0.5, 2.0, 3.0),
        RoundRatios.perRound(List.of(1.0, 4.0, 3.0), List.of(2.0, 2.0, 0.0)),
        "a round with no calls on the base side divides by 1");
  }

  @Test
  void verdict_saysMetOrMissedWithTheRatioFirst() {
    assertEquals(
        "NextFormattedId ÷ NextId = 0.93 (goal ≥ 0.9: met)",
        RoundRatios.verdict("NextFormattedId ÷ NextId", 0.934, FormattedRows.PLAIN_GOAL));
    assertEquals(
        "NextFormattedId ÷ NextId = 0.79 (goal ≥ 0.8: missed)",
        RoundRatios.verdict("NextFormattedId ÷ NextId", 0.794, FormattedRows.OPAQUE_GOAL));
    assertEquals(
        "NextFormattedId ÷ NextId = 0.798 (goal ≥ 0.8: missed)",
        RoundRatios.verdict("NextFormattedId ÷ NextId", 0.798, FormattedRows.OPAQUE_GOAL),
        "a miss never shows as the goal");
    assertEquals(
        "stream ÷ unary = 99.8 (goal ≥ 100: missed)",
        RoundRatios.verdict("stream ÷ unary", 99.8, FormattedRows.BATCH_GOAL));
    assertEquals(
        "stream ÷ unary = 1,234 (goal ≥ 100: met)",
        RoundRatios.verdict("stream ÷ unary", 1234.4, FormattedRows.BATCH_GOAL));
    assertEquals(0.9, FormattedRows.goal(FormattedTags.PLAIN));
    assertEquals(0.8, FormattedRows.goal(FormattedTags.OPAQUE));
  }

  @Test
  void verdict_parsesAsTheRowsRatioInResultsJson() {
    ResultsTable table = new ResultsTable();
    table.add(
        "F2",
        "c",
        "1,234 values/s (unary 10 values/s)",
        RoundRatios.verdict("stream ÷ unary", 1234.4, FormattedRows.BATCH_GOAL));
    assertEquals(1234.0, table.rows().get(0).ratioValue(), "the ratio, not the goal");
    assertEquals("values/s", table.rows().get(0).unit());
  }

  @Test
  void parse_onlyFormatted_isAPart() {
    BenchOptions options = BenchOptions.parse("--only", "formatted");
    assertTrue(
        options.runs("formatted") && !options.runs("bare"), "only: " + options.rows().only());
  }
}
