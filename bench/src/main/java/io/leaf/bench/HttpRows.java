package io.leaf.bench;

import io.leaf.v1.NextIdRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The HTTP row: Meituan Leaf's {@code GET /api/segment/get/{key}} from wrk against the same
 * server's gRPC NextId from h2load, each figure the median of the rounds.
 *
 * <p>Both are C clients with the same number of calls in flight, measured in the same run with the
 * order alternating. Skipped with a line when wrk is absent; without h2load the gRPC side is the
 * JVM client's figure.
 */
final class HttpRows {

  static final String TAG = "bench.http";
  private static final int CONNECTIONS = 4;
  private static final int STREAMS = 16;

  private final BenchOptions options;
  private final ResultsTable table;

  HttpRows(BenchOptions options, ResultsTable table) {
    this.options = options;
    this.table = table;
  }

  /**
   * @param jvmNextId the JVM client's unary NextId rate, for when h2load is absent
   */
  void wrkRow(BenchServer plain, double jvmNextId, int jvmConcurrency) throws Exception {
    int inFlight = CONNECTIONS * STREAMS;
    String measure =
        "HTTP /api/segment/get/{key} (wrk, "
            + inFlight
            + " connections) vs gRPC"
            + " NextId (h2load, "
            + inFlight
            + " in flight), same server";
    Optional<Wrk> wrk = Wrk.find();
    if (wrk.isEmpty()) {
      Progress.say("wrk not found: skipping the HTTP row (apt-get install wrk)");
      table.add(measure, "skipped: wrk not on PATH (Debian: apt-get install wrk)", "—", "—");
      return;
    }
    Optional<H2Load> h2load = H2Load.find();
    plain.ensureTag(TAG, options.load().latency().largeStep());
    String url = "http://127.0.0.1:" + plain.httpPort() + "/api/segment/get/" + TAG;
    byte[] nextId = NextIdRequest.newBuilder().setBizTag(TAG).build().toByteArray();
    Duration each = options.load().unary().duration();
    List<Double> httpRates = new ArrayList<>();
    List<Double> grpcRates = new ArrayList<>();
    List<Double> ratios = new ArrayList<>();
    for (int round = 1; round <= options.rounds().count(); round++) {
      Progress.say("wrk round %d/%d", round, options.rounds().count());
      Double http = null;
      Double grpc = null;
      for (int i = 0; i < 2; i++) {
        if ((i + round) % 2 == 0) {
          long before = plain.nextId(TAG);
          Wrk.Run run = wrk.get().run(url, each, inFlight);
          long consumed = plain.nextId(TAG) - before - 1;
          long ok = run.requests() - run.failed();
          // Only IDs actually issued prove the answers were IDs.
          if (run.failed() > 0 || consumed < ok) {
            throw new IllegalStateException(
                "wrk reported "
                    + ok
                    + " answers ("
                    + run.failed()
                    + " not 2xx) but the server issued "
                    + consumed
                    + " IDs");
          }
          http = run.requestsPerSecond();
        } else if (h2load.isPresent()) {
          grpc =
              h2load
                  .get()
                  .run(
                      plain.port(),
                      "leaf.v1.LeafService/NextId",
                      nextId,
                      each,
                      CONNECTIONS,
                      STREAMS)
                  .requestsPerSecond();
        }
      }
      httpRates.add(http);
      if (grpc != null) {
        grpcRates.add(grpc);
        ratios.add(http / grpc);
      }
    }
    double httpMedian = Stats.median(httpRates);
    if (h2load.isPresent()) {
      table.add(
          measure,
          wrk.get().describe()
              + " -t 1 -c "
              + inFlight
              + " (keep-alive) vs "
              + h2load.get().describe()
              + " -t 1 -c "
              + CONNECTIONS
              + " -m "
              + STREAMS
              + ", "
              + each.toMillis()
              + " ms each per round, order alternating; every wrk run checked"
              + " against the IDs the server issued",
          String.format(
              Locale.ROOT, "HTTP %,.0f/s · gRPC %,.0f/s", httpMedian, Stats.median(grpcRates)),
          String.format(Locale.ROOT, "HTTP ÷ gRPC = %.2f", Stats.median(ratios)));
    } else {
      table.add(
          measure + " (no h2load: gRPC from the JVM client)",
          wrk.get().describe()
              + " -t 1 -c "
              + inFlight
              + " (keep-alive), "
              + each.toMillis()
              + " ms per round",
          String.format(
              Locale.ROOT,
              "HTTP %,.0f/s · gRPC (JVM client, %d in flight) %,.0f/s",
              httpMedian,
              jvmConcurrency,
              jvmNextId),
          String.format(Locale.ROOT, "HTTP ÷ gRPC = %.2f", httpMedian / jvmNextId));
    }
  }
}
