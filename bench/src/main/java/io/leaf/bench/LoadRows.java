package io.leaf.bench;

import static io.leaf.bench.Cells.fmt;
import static io.leaf.bench.Cells.ms;
import static io.leaf.bench.LoadResults.num;
import static io.leaf.bench.LoadResults.select;
import static io.leaf.bench.LoadResults.values;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The rows of the load generator JVM's results: P1 unary, P2 batch streams, P3 latency. */
final class LoadRows {

  private final BenchOptions options;
  private final ResultsTable table;

  LoadRows(BenchOptions options, ResultsTable table) {
    this.options = options;
    this.table = table;
  }

  void unaryRows(List<Map<String, String>> load) {
    for (int c : options.load().unary().concurrencies()) {
      List<Map<String, String>> rounds =
          select(load, "p1", r -> r.get("concurrency").equals(Integer.toString(c)));
      double nextId = Stats.median(values(rounds, "nextId"));
      double check = Stats.median(values(rounds, "check"));
      double ratio =
          Stats.median(rounds.stream().map(r -> num(r, "nextId") / num(r, "check")).toList());
      table.add(
          "P1 unary NextId vs Health/Check, " + c + " in flight",
          "async stubs on one channel (Netty, 127.0.0.1, plaintext, direct executor), "
              + c
              + " in flight, "
              + ms(options.load().unary().duration())
              + " per call type per round,"
              + " order alternating; NextId tag step "
              + fmt(options.load().latency().largeStep()),
          String.format(Locale.ROOT, "NextId %,.0f/s · Check %,.0f/s", nextId, check),
          String.format(Locale.ROOT, "NextId ÷ Check = %.2f", ratio));
    }
  }

  void batchRows(List<Map<String, String>> load) {
    int reference = options.lastConcurrency();
    for (int chunk : options.load().batch().chunks()) {
      List<Map<String, String>> rounds =
          select(load, "p2", r -> r.get("chunk").equals(Integer.toString(chunk)));
      List<Double> ratios = new ArrayList<>();
      List<Double> unary = new ArrayList<>();
      for (Map<String, String> r : rounds) {
        Map<String, String> sameRound =
            select(
                    load,
                    "p1",
                    u ->
                        u.get("round").equals(r.get("round"))
                            && u.get("concurrency").equals(Integer.toString(reference)))
                .get(0);
        unary.add(num(sameRound, "nextId"));
        ratios.add(num(r, "idsPerSecond") / num(sameRound, "nextId"));
      }
      table.add(
          "P2 NextIdBatch stream vs unary NextId, chunk " + fmt(chunk),
          "count "
              + fmt(options.load().batch().count())
              + " per call, chunk_size "
              + fmt(chunk)
              + ", calls one after another for "
              + ms(options.load().batch().duration())
              + " per round, each read by a blocking stub; unary = P1 NextId at "
              + reference
              + " in flight in the same round; tag step "
              + fmt(options.load().latency().largeStep()),
          String.format(
              Locale.ROOT,
              "%,.0f IDs/s (unary %,.0f IDs/s)",
              Stats.median(values(rounds, "idsPerSecond")),
              Stats.median(unary)),
          String.format(Locale.ROOT, "stream ÷ unary = %.1f", Stats.median(ratios)));
    }
  }

  /** What the P3 server counted: waits for a load, segments dropped out of order. */
  record Counts(long waits, long drops) {
    static Counts of(BenchServer server) throws Exception {
      return new Counts(
          server.counter("leaf_segment_waits_total"), server.counter("leaf_segment_drops_total"));
    }

    Counts minus(Counts earlier) {
      return new Counts(waits - earlier.waits, drops - earlier.drops);
    }
  }

  void latencyRows(List<Map<String, String>> load, Counts counted) {
    List<Map<String, String>> small =
        select(load, "p3", r -> r.get("tag").equals(LoadGenerator.SMALL_STEP_TAG));
    List<Map<String, String>> large =
        select(load, "p3", r -> r.get("tag").equals(LoadGenerator.LARGE_STEP_TAG));
    List<Double> ratios = new ArrayList<>();
    for (Map<String, String> s : small) {
      Map<String, String> l =
          large.stream()
              .filter(r -> r.get("round").equals(s.get("round")))
              .findFirst()
              .orElseThrow();
      ratios.add(num(s, "p999") / num(l, "p999"));
    }
    table.add(
        "P3 NextId latency with slow segment loads, step "
            + fmt(options.load().latency().smallStep())
            + " vs "
            + fmt(options.load().latency().largeStep()),
        "+"
            + options.load().latency().loadDelay().toMillis()
            + " ms on every segment load, server max-step "
            + fmt(options.load().latency().smallStep())
            + " (so step "
            + fmt(options.load().latency().smallStep())
            + " stays), "
            + options.load().latency().concurrency()
            + " in flight (closed loop), "
            + ms(options.load().latency().duration())
            + " per tag per round, order alternating; the"
            + " server counted "
            + fmt(counted.waits())
            + " waits for a load and "
            + fmt(counted.drops())
            + " segments dropped out of order (both tags, all rounds,"
            + " first loads and warm-up included)",
        "step "
            + fmt(options.load().latency().smallStep())
            + ": "
            + percentiles(small)
            + " · step "
            + fmt(options.load().latency().largeStep())
            + ": "
            + percentiles(large),
        String.format(
            Locale.ROOT,
            "p99.9 step %s ÷ step %s = %.2f",
            fmt(options.load().latency().smallStep()),
            fmt(options.load().latency().largeStep()),
            Stats.median(ratios)));
    List<Map<String, String>> undelayed =
        select(load, "p3", r -> r.get("tag").equals(LoadGenerator.UNDELAYED_TAG));
    List<Double> delayShare = new ArrayList<>();
    for (Map<String, String> s : small) {
      Map<String, String> u =
          undelayed.stream()
              .filter(r -> r.get("round").equals(s.get("round")))
              .findFirst()
              .orElseThrow();
      delayShare.add(num(s, "p999") / num(u, "p999"));
    }
    table.add(
        "P3 baseline: step "
            + fmt(options.load().latency().smallStep())
            + " with +"
            + options.load().latency().loadDelay().toMillis()
            + " ms loads vs step "
            + fmt(options.load().latency().smallStep())
            + " without",
        "the same step on a second server of the same database whose loads have no added delay"
            + " (max-step "
            + fmt(options.load().latency().smallStep())
            + "), measured in the same rounds: the"
            + " ratio is the database's share of the tail, which the prefetch must hide (goal"
            + " ≤ 1.2); the row above is the cost of a load every "
            + fmt(options.load().latency().smallStep())
            + " IDs against step "
            + fmt(options.load().latency().largeStep()),
        "+"
            + options.load().latency().loadDelay().toMillis()
            + " ms: "
            + percentiles(small)
            + " · no delay: "
            + percentiles(undelayed),
        String.format(
            Locale.ROOT,
            "p99.9 +%d ms ÷ no delay = %.2f",
            options.load().latency().loadDelay().toMillis(),
            Stats.median(delayShare)));
  }

  private static String percentiles(List<Map<String, String>> rounds) {
    return String.format(
        Locale.ROOT,
        "p50 %,.0f µs, p99 %,.0f µs, p99.9 %,.0f µs (%,.0f calls/s)",
        Stats.median(values(rounds, "p50")),
        Stats.median(values(rounds, "p99")),
        Stats.median(values(rounds, "p999")),
        Stats.median(values(rounds, "qps")));
  }
}
