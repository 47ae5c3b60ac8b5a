package io.leaf.bench;

import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Unary NextId against Health/Check from h2load (one request in flight per connection, at 1, 8 and
 * 64 connections) on a server alone in its JVM, so that neither shares a JIT or a heap with the
 * benchmark; every NextId run is checked against the IDs the server issued.
 */
final class IsolatedH2Load {

  private static final List<Integer> CONNECTIONS = List.of(1, 8, 64);

  private final IsolatedServers servers;
  private final BenchOptions options;
  private final ResultsTable table;

  IsolatedH2Load(IsolatedServers servers, ResultsTable table) {
    this.servers = servers;
    this.options = servers.options;
    this.table = table;
  }

  void run() throws Exception {
    Optional<H2Load> found = H2Load.find();
    if (found.isEmpty()) {
      for (int c : CONNECTIONS) {
        table.add(
            "Isolated server: h2load NextId vs Health/Check, -c " + c + " -m 1",
            "skipped: h2load not on PATH (Debian: apt-get install nghttp2-client)",
            "—",
            "—");
      }
      return;
    }
    H2Load h2load = found.get();
    byte[] nextId = NextIdRequest.newBuilder().setBizTag(IsolatedServers.TAG).build().toByteArray();
    byte[] check = HealthCheckRequest.getDefaultInstance().toByteArray();
    Duration each = options.load().unary().duration();
    try (IsolatedServer server = servers.start(List.of(), List.of())) {
      int port = server.port();
      ManagedChannel channel = IsolatedServers.channel(port);
      LeafServiceGrpc.LeafServiceBlockingStub probe = LeafServiceGrpc.newBlockingStub(channel);
      NextIdRequest probeRequest =
          NextIdRequest.newBuilder().setBizTag(IsolatedServers.TAG).build();
      try {
        h2load.run(port, "leaf.v1.LeafService/NextId", nextId, options.rounds().warmup(), 8, 1);
        h2load.run(port, "grpc.health.v1.Health/Check", check, options.rounds().warmup(), 8, 1);
        for (int c : CONNECTIONS) {
          List<Double> nextIds = new ArrayList<>();
          List<Double> checks = new ArrayList<>();
          List<Double> ratios = new ArrayList<>();
          for (int round = 1; round <= options.rounds().count(); round++) {
            H2Load.Run n = null;
            H2Load.Run k = null;
            for (int i = 0; i < 2; i++) {
              if ((i + round) % 2 == 0) {
                long before = probe.nextId(probeRequest).getId();
                n = h2load.run(port, "leaf.v1.LeafService/NextId", nextId, each, c, 1);
                long consumed = probe.nextId(probeRequest).getId() - before - 1;
                // --quick's 200 ms may end before 64 connections are up: zero calls is no error.
                if (n.succeeded() == 0 && !options.quick() || consumed < n.succeeded()) {
                  throw new IllegalStateException(
                      "h2load reported "
                          + n.succeeded()
                          + " NextId calls but the server issued "
                          + consumed
                          + " IDs");
                }
              } else {
                k = h2load.run(port, "grpc.health.v1.Health/Check", check, each, c, 1);
              }
            }
            Progress.say(
                "isolated server, h2load -c %d -m 1, round %d/%d: NextId %,.0f/s, Check"
                    + " %,.0f/s",
                c, round, options.rounds().count(), n.requestsPerSecond(), k.requestsPerSecond());
            nextIds.add(n.requestsPerSecond());
            checks.add(k.requestsPerSecond());
            ratios.add(n.requestsPerSecond() / Math.max(1, k.requestsPerSecond()));
          }
          table.add(
              "Isolated server: h2load NextId vs Health/Check, -c " + c + " -m 1",
              h2load.describe()
                  + " -t 1 -c "
                  + c
                  + " -m 1, "
                  + ms(each)
                  + " per call type per"
                  + " round, order alternating; "
                  + servers.build
                  + " alone in a JVM (default flags);"
                  + " tag step "
                  + fmt(options.load().latency().largeStep()),
              String.format(
                  Locale.ROOT,
                  "NextId %,.0f/s · Check %,.0f/s",
                  Stats.median(nextIds),
                  Stats.median(checks)),
              String.format(Locale.ROOT, "NextId ÷ Check = %.2f", Stats.median(ratios)));
        }
      } finally {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  private static String fmt(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  private static String ms(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }
}
