package io.leaf.bench;

import static io.leaf.bench.Cells.ms;
import static io.leaf.bench.LoadResults.select;
import static io.leaf.bench.LoadResults.values;

import io.grpc.health.v1.HealthCheckRequest;
import io.leaf.v1.NextIdRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** P1 again from a client outside the JVM: h2load (a C client), when installed. */
final class H2LoadRow {

  private static final String H2LOAD_TAG = "bench.h2load";
  private static final int H2LOAD_CONNECTIONS = 4;
  private static final int H2LOAD_STREAMS = 16;

  private final BenchOptions options;
  private final ResultsTable table;

  H2LoadRow(BenchOptions options, ResultsTable table) {
    this.options = options;
    this.table = table;
  }

  /** Adds the row: h2load against {@code plain}, beside P1's JVM client figures in {@code load}. */
  void run(BenchServer plain, List<Map<String, String>> load) throws Exception {
    String measure =
        "P1 from h2load (C client): NextId vs Health/Check, "
            + H2LOAD_CONNECTIONS * H2LOAD_STREAMS
            + " in flight";
    Optional<H2Load> found = H2Load.find();
    if (found.isEmpty()) {
      Progress.say("h2load not found: skipping its row (apt-get install nghttp2-client)");
      table.add(
          measure,
          "skipped: h2load not on PATH (Debian: apt-get install nghttp2-client)",
          "—",
          "—");
      return;
    }
    H2Load h2load = found.get();
    plain.ensureTag(H2LOAD_TAG, options.load().latency().largeStep());
    byte[] nextId = NextIdRequest.newBuilder().setBizTag(H2LOAD_TAG).build().toByteArray();
    byte[] check = HealthCheckRequest.getDefaultInstance().toByteArray();
    Duration each = options.load().unary().duration();
    List<Double> nextIdRates = new ArrayList<>();
    List<Double> checkRates = new ArrayList<>();
    List<Double> ratios = new ArrayList<>();
    for (int round = 1; round <= options.rounds().count(); round++) {
      Progress.say("h2load round %d/%d", round, options.rounds().count());
      H2Load.Run n = null;
      H2Load.Run c = null;
      for (int i = 0; i < 2; i++) {
        // Alternate which call goes first, as the JVM generator does.
        if ((i + round) % 2 == 0) {
          long before = plain.nextId(H2LOAD_TAG);
          n =
              h2load.run(
                  plain.port(),
                  "leaf.v1.LeafService/NextId",
                  nextId,
                  each,
                  H2LOAD_CONNECTIONS,
                  H2LOAD_STREAMS);
          long consumed = plain.nextId(H2LOAD_TAG) - before - 1;
          // gRPC errors arrive after an HTTP 200, so only IDs actually issued prove success.
          if (n.succeeded() == 0 || consumed < n.succeeded()) {
            throw new IllegalStateException(
                "h2load reported "
                    + n.succeeded()
                    + " NextId calls but the server issued "
                    + consumed
                    + " IDs");
          }
        } else {
          c =
              h2load.run(
                  plain.port(),
                  "grpc.health.v1.Health/Check",
                  check,
                  each,
                  H2LOAD_CONNECTIONS,
                  H2LOAD_STREAMS);
        }
      }
      nextIdRates.add(n.requestsPerSecond());
      checkRates.add(c.requestsPerSecond());
      ratios.add(n.requestsPerSecond() / c.requestsPerSecond());
    }
    double jvmClient =
        Stats.median(
            values(
                select(
                    load,
                    "p1",
                    r -> r.get("concurrency").equals(Integer.toString(options.lastConcurrency()))),
                "nextId"));
    table.add(
        measure,
        h2load.describe()
            + " -t 1 -c "
            + H2LOAD_CONNECTIONS
            + " -m "
            + H2LOAD_STREAMS
            + ", "
            + ms(each)
            + " per call type per round, order alternating;"
            + " each NextId run checked against the IDs the server issued",
        String.format(
            Locale.ROOT,
            "NextId %,.0f/s · Check %,.0f/s (JVM client, %d in flight:" + " NextId %,.0f/s)",
            Stats.median(nextIdRates),
            Stats.median(checkRates),
            options.lastConcurrency(),
            jvmClient),
        String.format(Locale.ROOT, "NextId ÷ Check = %.2f", Stats.median(ratios)));
  }
}
