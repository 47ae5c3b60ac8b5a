package io.leaf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.store.SegmentRange;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PartsTest {

  @Test
  void median_oddCount_isMiddleValue() {
    assertEquals(3.0, Stats.median(List.of(9.0, 1.0, 3.0)), "median of 9, 1, 3");
  }

  @Test
  void median_evenCount_averagesMiddleTwo() {
    assertEquals(2.5, Stats.median(List.of(4.0, 1.0, 2.0, 3.0)), "median of 4, 1, 2, 3");
  }

  @Test
  void resultLine_formatThenParse_keepsKeysAndValues() {
    String line = ResultLine.format("measure", "p1", "round", 2, "qps", 1234.5);

    assertTrue(ResultLine.isResult(line), "a result line: " + line);
    assertEquals(
        Map.of("measure", "p1", "round", "2", "qps", "1234.5"),
        ResultLine.parse(line),
        "parsed " + line);
  }

  @Test
  void parse_unknownFlag_namesIt() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--durtion", "5"));
    assertTrue(e.getMessage().contains("--durtion"), "message names the flag: " + e.getMessage());
  }

  @Test
  void parse_only_keepsPartsAndRejectsUnknownNamingThem() {
    BenchOptions options = BenchOptions.parse("--only", "cache,bare");
    assertTrue(
        options.runs("cache") && options.runs("bare") && !options.runs("latency"),
        "only the parts named: " + options.rows().only());
    assertTrue(BenchOptions.parse().runs("latency"), "no --only runs every part");
    assertEquals(
        List.of("--rounds", "5", "--only", "cache,bare"),
        options.toArgs(),
        "the child JVMs get the same parts");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> BenchOptions.parse("--only", "latency,cahce"));
    assertTrue(
        e.getMessage().contains("cahce") && e.getMessage().contains("latency, cache, bare"),
        "message names the bad part and the good ones: " + e.getMessage());
  }

  @Test
  void parse_targetsRowsAndOut_landInTheirGroups() {
    BenchOptions options =
        BenchOptions.parse(
            "--quick",
            "--db-url",
            "jdbc:mysql://127.0.0.1/leaf",
            "--db-user",
            "leaf",
            "--db-password",
            "secret",
            "--server-classpath",
            "other.jar",
            "--server-flags",
            " --metrics-port  9464 ",
            "--isolated-only",
            "--ranges-only",
            "--out",
            "run.md",
            "--rounds",
            "3");

    assertEquals(
        new BenchOptions.Targets(
            "jdbc:mysql://127.0.0.1/leaf",
            "leaf",
            "secret",
            "other.jar",
            List.of("--metrics-port", "9464")),
        options.targets(),
        "the servers under test");
    assertEquals(new BenchOptions.Rows(true, true, List.of()), options.rows(), "which rows");
    assertEquals(Path.of("run.md"), options.out(), "where the table goes");
    assertEquals(3, options.rounds().count(), "--rounds");
    assertTrue(options.quick(), "--quick");
    assertEquals(Duration.ofMillis(200), options.rounds().warmup(), "quick warm-up");
    assertEquals(0, options.rounds().jmh().forks(), "quick runs JMH in this JVM");
    assertEquals(List.of(1, 8, 64), options.load().unary().concurrencies(), "P1's concurrencies");
    assertEquals(64, options.lastConcurrency(), "the last of P1's concurrencies");
    assertEquals(
        List.of(
            "--quick",
            "--rounds",
            "3",
            "--server-classpath",
            "other.jar",
            "--server-flags",
            "--metrics-port 9464"),
        options.toArgs(),
        "the child JVMs get the same run");
  }

  @Test
  void parse_noFlags_fullRunOnEmbeddedH2() {
    BenchOptions options = BenchOptions.parse();

    assertEquals(
        new BenchOptions.Targets(null, "sa", "", null, List.of()),
        options.targets(),
        "an embedded H2 and this build's server");
    assertEquals(BenchOptions.DEFAULT_OUT, options.out(), "the default results file");
    assertEquals(5, options.rounds().count(), "five rounds");
    assertEquals(
        new BenchOptions.Latency(8, Duration.ofSeconds(3), 100, 1_000_000, Duration.ofMillis(5)),
        options.load().latency(),
        "P3's shape");
  }

  @Test
  void parse_rounds_mustBePositive() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--rounds", "0"));
    assertTrue(
        e.getMessage().contains("--rounds") && e.getMessage().contains("0"),
        "message names flag and value: " + e.getMessage());
  }

  @Test
  void delayingStore_nextSegment_waitsAtLeastTheDelay() {
    MemorySegmentStore inner = new MemorySegmentStore();
    inner.createTag("t", 1, 10, "");
    DelayingSegmentStore store = new DelayingSegmentStore(inner, Duration.ofMillis(20));

    long start = System.nanoTime();
    SegmentRange range = store.nextSegment("t", 0);
    long elapsed = System.nanoTime() - start;

    assertEquals(new SegmentRange(1, 11, 10, 10), range, "the wrapped store's segment");
    assertTrue(
        elapsed >= Duration.ofMillis(20).toNanos(),
        "waited at least 20 ms, took " + elapsed + " ns");
  }

  @Test
  @SuppressWarnings("checkstyle:LineLength") // h2load's own output, as it prints it
  void h2loadParse_realOutput_readsRateAndCounts() {
    String output =
        """
        finished in 5.00s, 23384.20 req/s, 936.40KB/s
        requests: 116921 total, 117049 started, 116921 done, 116900 succeeded, 21 failed, 0 errored, 0 timeout
        status codes: 116921 2xx, 0 3xx, 0 4xx, 0 5xx
        """;
    H2Load.Run run = H2Load.parse(output);
    assertEquals(23384.20, run.requestsPerSecond(), 1e-9, "req/s");
    assertEquals(116900, run.succeeded(), "succeeded");
    assertEquals(21, run.failed(), "failed");
  }

  @Test
  void h2loadParse_garbage_failsWithTheOutput() {
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> H2Load.parse("connect failed"));
    assertTrue(e.getMessage().contains("connect failed"), e.getMessage());
  }

  @Test
  void grpcFrame_prefixesFlagAndBigEndianLength() {
    byte[] frame = H2Load.grpcFrame(new byte[] {10, 2, 'a', 'b'});
    assertEquals(
        List.of(0, 0, 0, 0, 4, 10, 2, 'a' + 0, 'b' + 0),
        IntStream.range(0, frame.length).mapToObj(i -> (int) frame[i]).toList(),
        "flag 0, length 4, then the message");
  }
}
