package io.leaf.bench;

import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.leaf.v1.GetWorkerRequest;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.NextSnowflakeIdRequest;
import io.leaf.v1.SnowflakeServiceGrpc;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

/**
 * The bare-server rows (P8): how close each Leaf RPC of {@link #RPCS} comes to the transport's
 * limit, measured against Health/Check of {@link BareServer}.
 *
 * <p>Both sides are driven by h2load, each server alone in a JVM of its own, in the same rounds
 * with the order alternating. {@link BareServer} is the fastest unary server grpc-java gives.
 */
final class BareServerRows {

  /**
   * A Leaf RPC to hold against the bare server.
   *
   * @param issued a count that each successful call raises by at least one (h2load counts HTTP
   *     statuses, and gRPC errors arrive after an HTTP 200), read over the channel before and after
   *     each run, each reading itself raising it by one; null when calls cannot be counted this way
   */
  record Rpc(
      String name, String fullMethod, byte[] request, ToLongFunction<ManagedChannel> issued) {}

  /** One line per RPC measured. */
  static final List<Rpc> RPCS =
      List.of(
          new Rpc(
              "NextId",
              "leaf.v1.LeafService/NextId",
              nextIdRequest().toByteArray(),
              ch ->
                  LeafServiceGrpc.newBlockingStub(ch)
                      .withDeadlineAfter(10, TimeUnit.SECONDS)
                      .nextId(nextIdRequest())
                      .getId()),
          new Rpc(
              "NextSnowflakeId",
              "leaf.v1.SnowflakeService/NextSnowflakeId",
              NextSnowflakeIdRequest.getDefaultInstance().toByteArray(),
              BareServerRows::snowflakeIdsIssued));

  private static final List<Integer> CONNECTIONS = List.of(8, 64);
  private static final String CHECK = "grpc.health.v1.Health/Check";

  private final IsolatedServers servers;
  private final BenchOptions options;
  private final ResultsTable table;

  BareServerRows(IsolatedServers servers, ResultsTable table) {
    this.servers = servers;
    this.options = servers.options;
    this.table = table;
  }

  /**
   * Issues one snowflake ID, as reading NextId's count does, then reads the server's count; first
   * waits for the server's worker lease.
   */
  private static long snowflakeIdsIssued(ManagedChannel channel) {
    try {
      SnowflakeLoad.awaitLease(channel);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for the worker lease", e);
    }
    var stub =
        SnowflakeServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
    stub.nextSnowflakeId(NextSnowflakeIdRequest.getDefaultInstance());
    return stub.getWorker(GetWorkerRequest.getDefaultInstance()).getIdsIssued();
  }

  private static NextIdRequest nextIdRequest() {
    return NextIdRequest.newBuilder().setBizTag(IsolatedServers.TAG).build();
  }

  void run() throws Exception {
    Optional<H2Load> found = H2Load.find();
    if (found.isEmpty()) {
      for (Rpc rpc : RPCS) {
        for (int c : CONNECTIONS) {
          table.add(
              measure(rpc, c),
              "skipped: h2load not on PATH (Debian: apt-get install nghttp2-client)",
              "—",
              "—");
        }
      }
      return;
    }
    H2Load h2load = found.get();
    byte[] check = HealthCheckRequest.getDefaultInstance().toByteArray();
    Duration each = options.load().unary().duration();
    try (IsolatedServer leaf = servers.start(List.of(), List.of());
        IsolatedServer bare =
            new IsolatedServer(
                List.of(), System.getProperty("java.class.path"), BareServer.class, List.of())) {
      int leafPort = leaf.port();
      int barePort = bare.port();
      ManagedChannel channel = IsolatedServers.channel(leafPort);
      try {
        warmUp(h2load, barePort, CHECK, check);
        for (Rpc rpc : RPCS) {
          warmUp(h2load, leafPort, rpc.fullMethod(), rpc.request());
          for (int c : CONNECTIONS) {
            List<Double> calls = new ArrayList<>();
            List<Double> checks = new ArrayList<>();
            List<Double> ratios = new ArrayList<>();
            for (int round = 1; round <= options.rounds().count(); round++) {
              H2Load.Run r = null;
              H2Load.Run k = null;
              for (int i = 0; i < 2; i++) {
                if ((i + round) % 2 == 0) {
                  r = checked(h2load, channel, leafPort, rpc, each, c);
                } else {
                  k = h2load.run(barePort, CHECK, check, each, c, 1);
                }
              }
              Progress.say(
                  "bare server, h2load -c %d -m 1, round %d/%d: %s %,.0f/s, bare Check"
                      + " %,.0f/s",
                  c,
                  round,
                  options.rounds().count(),
                  rpc.name(),
                  r.requestsPerSecond(),
                  k.requestsPerSecond());
              calls.add(r.requestsPerSecond());
              checks.add(k.requestsPerSecond());
              ratios.add(r.requestsPerSecond() / Math.max(1, k.requestsPerSecond()));
            }
            table.add(
                measure(rpc, c),
                h2load.describe()
                    + " -t 1 -c "
                    + c
                    + " -m 1, "
                    + ms(each)
                    + " per call type per"
                    + " round, order alternating; "
                    + servers.build
                    + " alone in a JVM (default"
                    + " flags, tag step "
                    + fmt(options.load().latency().largeStep())
                    + ") / a bare grpc-java"
                    + " server alone in a JVM (Netty, direct executor, health service only,"
                    + " logging off) (goal ≥ 0.9)",
                String.format(
                    Locale.ROOT,
                    "%s %,.0f/s · bare Check %,.0f/s",
                    rpc.name(),
                    Stats.median(calls),
                    Stats.median(checks)),
                String.format(
                    Locale.ROOT, "%s ÷ bare Check = %.2f", rpc.name(), Stats.median(ratios)));
          }
        }
      } finally {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  /** Runs {@code method} at every concurrency measured until its rates settle ({@link WarmUp}). */
  private void warmUp(H2Load h2load, int port, String method, byte[] request) throws Exception {
    WarmUp.untilSettled(
        options.quick(),
        "bare-server row, " + method,
        () -> {
          double[] rates = new double[CONNECTIONS.size()];
          for (int i = 0; i < rates.length; i++) {
            rates[i] =
                h2load
                    .run(port, method, request, options.rounds().warmup(), CONNECTIONS.get(i), 1)
                    .requestsPerSecond();
          }
          return rates;
        });
  }

  /** One h2load run of {@code rpc}, checked against what the server issued when it can be. */
  private H2Load.Run checked(
      H2Load h2load, ManagedChannel channel, int port, Rpc rpc, Duration each, int connections)
      throws Exception {
    long before = rpc.issued() == null ? 0 : rpc.issued().applyAsLong(channel);
    H2Load.Run run = h2load.run(port, rpc.fullMethod(), rpc.request(), each, connections, 1);
    if (rpc.issued() != null) {
      long issued = rpc.issued().applyAsLong(channel) - before - 1;
      // --quick's 200 ms may end before 64 connections are up: zero calls is no error then.
      if (run.succeeded() == 0 && !options.quick() || issued < run.succeeded()) {
        throw new IllegalStateException(
            "h2load reported "
                + run.succeeded()
                + " "
                + rpc.name()
                + " calls but the server issued "
                + issued);
      }
    }
    return run;
  }

  private static String measure(Rpc rpc, int connections) {
    return "P8 "
        + rpc.name()
        + " vs a bare grpc-java server's Health/Check, h2load -c "
        + connections
        + " -m 1";
  }

  private static String fmt(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  private static String ms(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }
}
