package io.leaf.bench;

import io.grpc.ManagedChannel;
import io.leaf.client.BearerToken;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The scoped-token row (P9): what the token check, the scope match and the rate bucket cost per
 * call, unary NextId with a token file against without.
 *
 * <p>Both sides run from h2load against a server alone in its JVM, in the same rounds with the
 * order alternating. With the token file, the caller's token is scoped to a prefix, with a rate
 * high enough never to refuse, among a hundred other tokens.
 */
final class TokenRows {

  /** The benchmark's token: not a secret, it guards a throw-away server. */
  static final String TOKEN = "leaf-bench-token";

  private static final List<Integer> CONNECTIONS = List.of(8, 64);
  private static final String NEXT_ID = "leaf.v1.LeafService/NextId";

  private final IsolatedServers plain;
  private final IsolatedServers scoped;
  private final BenchOptions options;
  private final ResultsTable table;

  /**
   * @param scoped the servers with the token file (a database of their own on H2)
   */
  TokenRows(IsolatedServers plain, IsolatedServers scoped, ResultsTable table) {
    this.plain = plain;
    this.scoped = scoped;
    this.options = plain.options;
    this.table = table;
  }

  void run(Path tempDir) throws Exception {
    Optional<H2Load> found = H2Load.find();
    if (found.isEmpty()) {
      for (int c : CONNECTIONS) {
        table.add(
            measure(c),
            "skipped: h2load not on PATH (Debian: apt-get install" + " nghttp2-client)",
            "—",
            "—");
      }
      return;
    }
    H2Load h2load = found.get();
    Path tokens = tempDir.resolve("bench-tokens");
    Files.writeString(tokens, tokenFile());
    byte[] request =
        NextIdRequest.newBuilder().setBizTag(IsolatedServers.TAG).build().toByteArray();
    List<String> header = List.of("authorization: Bearer " + TOKEN);
    Duration each = options.load().unary().duration();
    try (IsolatedServer open = plain.start(List.of(), List.of());
        IsolatedServer guarded =
            scoped.start(List.of(), List.of("--tokens-file", tokens.toString()))) {
      int openPort = open.port();
      int guardedPort = guarded.port();
      ManagedChannel openChannel = IsolatedServers.channel(openPort);
      ManagedChannel guardedChannel = IsolatedServers.channel(guardedPort);
      try {
        warmUp(h2load, openPort, request, List.of());
        warmUp(h2load, guardedPort, request, header);
        for (int c : CONNECTIONS) {
          List<Double> withTokens = new ArrayList<>();
          List<Double> without = new ArrayList<>();
          List<Double> ratios = new ArrayList<>();
          for (int round = 1; round <= options.rounds().count(); round++) {
            H2Load.Run t = null;
            H2Load.Run n = null;
            for (int i = 0; i < 2; i++) {
              if ((i + round) % 2 == 0) {
                t = checked(h2load, guardedChannel, guardedPort, request, header, each, c);
              } else {
                n = checked(h2load, openChannel, openPort, request, List.of(), each, c);
              }
            }
            Progress.say(
                "scoped tokens, h2load -c %d -m 1, round %d/%d: with %,.0f/s, without" + " %,.0f/s",
                c, round, options.rounds().count(), t.requestsPerSecond(), n.requestsPerSecond());
            withTokens.add(t.requestsPerSecond());
            without.add(n.requestsPerSecond());
            ratios.add(t.requestsPerSecond() / Math.max(1, n.requestsPerSecond()));
          }
          table.add(
              measure(c),
              h2load.describe()
                  + " -t 1 -c "
                  + c
                  + " -m 1, "
                  + each.toMillis()
                  + " ms per server per round, order alternating; "
                  + plain.build
                  + " alone in a JVM"
                  + " with --tokens-file (101 tokens; the caller's: reserve, tags bench.*, rate"
                  + " 1000000000/s) / the same without tokens, each on a database of its own"
                  + " (goal ≥ 0.95)",
              String.format(
                  Locale.ROOT,
                  "with %,.0f/s · without %,.0f/s",
                  Stats.median(withTokens),
                  Stats.median(without)),
              String.format(Locale.ROOT, "with ÷ without = %.2f", Stats.median(ratios)));
        }
      } finally {
        openChannel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        guardedChannel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  /** The caller's token among a hundred others, as a shared server's file would hold them. */
  static String tokenFile() throws Exception {
    StringBuilder file = new StringBuilder("# leaf-bench\n");
    for (int i = 0; i < 100; i++) {
      file.append("team-")
          .append(i)
          .append(' ')
          .append(hash("other-" + i))
          .append(" issue team")
          .append(i)
          .append(".*,shared.")
          .append(i)
          .append(" 5000/s\n");
    }
    file.append("bench ").append(hash(TOKEN)).append(" reserve bench.* 1000000000/s\n");
    return file.toString();
  }

  private static String hash(String token) throws Exception {
    return "sha256:"
        + HexFormat.of()
            .formatHex(
                MessageDigest.getInstance("SHA-256")
                    .digest(token.getBytes(StandardCharsets.UTF_8)));
  }

  private void warmUp(H2Load h2load, int port, byte[] request, List<String> headers)
      throws Exception {
    WarmUp.untilSettled(
        options.quick(),
        "scoped-token row, port " + port,
        () -> {
          double[] rates = new double[CONNECTIONS.size()];
          for (int i = 0; i < rates.length; i++) {
            rates[i] =
                h2load
                    .run(
                        port,
                        NEXT_ID,
                        request,
                        options.rounds().warmup(),
                        CONNECTIONS.get(i),
                        1,
                        headers)
                    .requestsPerSecond();
          }
          return rates;
        });
  }

  /**
   * One h2load run, checked against the IDs the server issued: gRPC refusals arrive as HTTP 200, so
   * a refused token would otherwise count as calls served.
   */
  private H2Load.Run checked(
      H2Load h2load,
      ManagedChannel channel,
      int port,
      byte[] request,
      List<String> headers,
      Duration each,
      int connections)
      throws Exception {
    long before = issued(channel);
    H2Load.Run run = h2load.run(port, NEXT_ID, request, each, connections, 1, headers);
    long issued = issued(channel) - before - 1;
    if (run.succeeded() == 0 && !options.quick() || issued < run.succeeded()) {
      throw new IllegalStateException(
          "h2load reported "
              + run.succeeded()
              + " NextId calls but"
              + " the server on port "
              + port
              + " issued "
              + issued);
    }
    return run;
  }

  private static long issued(ManagedChannel channel) {
    return LeafServiceGrpc.newBlockingStub(channel)
        .withCallCredentials(new BearerToken(TOKEN))
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .nextId(NextIdRequest.newBuilder().setBizTag(IsolatedServers.TAG).build())
        .getId();
  }

  private static String measure(int connections) {
    return "P9 NextId with a scoped token ÷ without tokens, h2load -c " + connections + " -m 1";
  }
}
