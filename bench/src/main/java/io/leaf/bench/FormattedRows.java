package io.leaf.bench;

import static io.leaf.bench.Cells.fmt;
import static io.leaf.bench.Cells.ms;

import io.grpc.ManagedChannel;
import io.leaf.bench.FormattedTags.Format;
import io.leaf.bench.FormattedTags.Reading;
import io.leaf.v1.NextIdRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The formatted-ID rows (F1, F2): unary NextFormattedId ÷ NextId on the same server (plain format
 * goal ≥ 0.9, opaque ≥ 0.8), and NextFormattedIdBatch values/s ÷ unary NextFormattedId values/s
 * (goal ≥ 100).
 *
 * <p>The unary calls come from h2load at 8 and 64 connections, one call in flight each. The server
 * is a {@link StressServer} alone in its JVM with a {@code --format-key-file}; in each round the
 * three unary calls run in rotating order, so each ratio compares runs seconds apart.
 */
final class FormattedRows {

  static final List<Integer> CONNECTIONS = List.of(8, 64);
  static final double PLAIN_GOAL = 0.9;
  static final double OPAQUE_GOAL = 0.8;
  static final double BATCH_GOAL = 100;

  /** One unary call measured: NextId, or NextFormattedId of a format. */
  record Unary(String name, Format format, byte[] request) {
    String fullMethod() {
      return format == null ? "leaf.v1.LeafService/NextId" : "leaf.v1.LeafService/NextFormattedId";
    }
  }

  static final List<Unary> UNARY =
      List.of(
          new Unary("NextId", null, request(IsolatedServers.TAG)),
          new Unary(
              "NextFormattedId plain", FormattedTags.PLAIN, request(FormattedTags.PLAIN.tag())),
          new Unary(
              "NextFormattedId opaque", FormattedTags.OPAQUE, request(FormattedTags.OPAQUE.tag())));

  private final IsolatedServers servers;
  private final BenchOptions options;
  private final ResultsTable table;
  private final Path keyDir;

  /**
   * @param keyDir where the key file is written (deleted afterwards); null for the temp dir
   */
  FormattedRows(IsolatedServers servers, ResultsTable table, Path keyDir) {
    this.servers = servers;
    this.options = servers.options;
    this.table = table;
    this.keyDir = keyDir;
  }

  private static byte[] request(String tag) {
    return NextIdRequest.newBuilder().setBizTag(tag).build().toByteArray();
  }

  void run() throws Exception {
    Optional<H2Load> found = H2Load.find();
    if (found.isEmpty()) {
      String skipped = "skipped: h2load not on PATH (Debian: apt-get install nghttp2-client)";
      for (Unary u : UNARY.subList(1, UNARY.size())) {
        for (int c : CONNECTIONS) {
          table.add(unaryMeasure(u, c), skipped, "—", "—");
        }
      }
      for (FormattedBatch b : FormattedBatch.all(options)) {
        table.add(b.measure(), skipped, "—", "—");
      }
      return;
    }
    H2Load h2load = found.get();
    Path keyFile =
        FormattedTags.writeKeyFile(
            keyDir != null ? keyDir : Path.of(System.getProperty("java.io.tmpdir")));
    try (IsolatedServer server =
        servers.start(List.of(), List.of("--format-key-file", keyFile.toString()))) {
      int port = server.port();
      ManagedChannel channel = IsolatedServers.channel(port);
      try {
        FormattedTags.create(channel, options.load().latency().largeStep());
        measure(h2load, port, channel);
      } finally {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    } finally {
      Files.deleteIfExists(keyFile);
    }
  }

  private void measure(H2Load h2load, int port, ManagedChannel channel) throws Exception {
    for (Unary u : UNARY) {
      WarmUp.untilSettled(
          options.quick(),
          "formatted rows, " + u.name(),
          () -> {
            double[] rates = new double[CONNECTIONS.size()];
            for (int i = 0; i < rates.length; i++) {
              rates[i] =
                  h2load
                      .run(
                          port,
                          u.fullMethod(),
                          u.request(),
                          options.rounds().warmup(),
                          CONNECTIONS.get(i),
                          1)
                      .requestsPerSecond();
            }
            return rates;
          });
    }
    List<FormattedBatch> batches = FormattedBatch.all(options);
    for (FormattedBatch b : batches) {
      b.stream(channel, options.rounds().warmup());
    }
    // rates.get(unary name + " -c " + connections): one figure per round
    Map<String, List<Double>> rates = new LinkedHashMap<>();
    Map<FormattedBatch, List<Double>> streamed = new LinkedHashMap<>();
    int unchecked = 0;
    for (int round = 1; round <= options.rounds().count(); round++) {
      for (int c : CONNECTIONS) {
        for (Unary u : RoundRatios.rotated(UNARY, round)) {
          Reading before = reading(channel, u);
          H2Load.Run run =
              h2load.run(
                  port, u.fullMethod(), u.request(), options.load().unary().duration(), c, 1);
          if (!FormattedTags.check(
              u.name(), run.succeeded(), before, reading(channel, u), options.quick())) {
            unchecked++;
          }
          rates.computeIfAbsent(key(u, c), k -> new ArrayList<>()).add(run.requestsPerSecond());
        }
        Progress.say(
            "formatted rows, h2load -c %d -m 1, round %d/%d: NextId %,.0f/s, plain"
                + " %,.0f/s, opaque %,.0f/s",
            c,
            round,
            options.rounds().count(),
            last(rates, key(UNARY.get(0), c)),
            last(rates, key(UNARY.get(1), c)),
            last(rates, key(UNARY.get(2), c)));
      }
      for (FormattedBatch b : batches) {
        double perSecond = b.stream(channel, options.load().batch().duration());
        streamed.computeIfAbsent(b, k -> new ArrayList<>()).add(perSecond);
        Progress.say(
            "formatted rows, NextFormattedIdBatch %s chunk %,d, round %d/%d: %,.0f" + " values/s",
            b.format().name(), b.chunk(), round, options.rounds().count(), perSecond);
      }
    }
    String checkNote =
        unchecked == 0
            ? ""
            : "; " + unchecked + " runs crossed midnight UTC and" + " were not checked";
    unaryRows(h2load, rates, checkNote);
    batchRows(rates, streamed);
  }

  private void unaryRows(H2Load h2load, Map<String, List<Double>> rates, String checkNote) {
    Unary nextId = UNARY.get(0);
    for (Unary u : UNARY.subList(1, UNARY.size())) {
      double goal = goal(u.format());
      for (int c : CONNECTIONS) {
        List<Double> mine = rates.get(key(u, c));
        List<Double> base = rates.get(key(nextId, c));
        table.add(
            unaryMeasure(u, c),
            h2load.describe()
                + " -t 1 -c "
                + c
                + " -m 1, "
                + ms(options.load().unary().duration())
                + " per call type per round, NextId, plain and opaque in rotating order; "
                + servers.build
                + " alone in a JVM (default flags and --format-key-file of 64"
                + " hex digits); format "
                + u.format().describe()
                + ", zone UTC; tag steps "
                + fmt(options.load().latency().largeStep())
                + " (a period row's step at most 1% of its width);"
                + " every run checked against the numbers the server issued"
                + checkNote
                + " (goal ≥ "
                + goal
                + ")",
            String.format(
                Locale.ROOT,
                "NextFormattedId %,.0f/s · NextId %,.0f/s",
                Stats.median(mine),
                Stats.median(base)),
            RoundRatios.verdict(
                "NextFormattedId ÷ NextId", Stats.median(RoundRatios.perRound(mine, base)), goal));
      }
    }
  }

  private void batchRows(
      Map<String, List<Double>> rates, Map<FormattedBatch, List<Double>> streamed) {
    int c = CONNECTIONS.get(CONNECTIONS.size() - 1);
    for (Map.Entry<FormattedBatch, List<Double>> e : streamed.entrySet()) {
      FormattedBatch b = e.getKey();
      List<Double> unary = rates.get(key(unaryOf(b.format()), c));
      table.add(
          b.measure(),
          "count "
              + fmt(b.count())
              + " per call, chunk_size "
              + fmt(b.chunk())
              + ", calls one"
              + " after another for "
              + ms(options.load().batch().duration())
              + " per round, each read"
              + " by a blocking stub in the bench JVM; unary = NextFormattedId of the same tag"
              + " from h2load -c "
              + c
              + " -m 1 in the same round; format "
              + b.format().describe()
              + " (goal ≥ "
              + fmt((long) BATCH_GOAL)
              + ")",
          String.format(
              Locale.ROOT,
              "%,.0f values/s (unary %,.0f values/s)",
              Stats.median(e.getValue()),
              Stats.median(unary)),
          RoundRatios.verdict(
              "stream ÷ unary",
              Stats.median(RoundRatios.perRound(e.getValue(), unary)),
              BATCH_GOAL));
    }
  }

  private static Reading reading(ManagedChannel channel, Unary u) {
    return u.format() == null
        ? FormattedTags.nextId(channel, IsolatedServers.TAG)
        : FormattedTags.nextFormatted(channel, u.format());
  }

  static double goal(Format f) {
    return f == FormattedTags.OPAQUE ? OPAQUE_GOAL : PLAIN_GOAL;
  }

  private static Unary unaryOf(Format f) {
    return UNARY.stream().filter(u -> u.format() == f).findFirst().orElseThrow();
  }

  private static String key(Unary u, int connections) {
    return u.name() + " -c " + connections;
  }

  private static double last(Map<String, List<Double>> rates, String key) {
    List<Double> l = rates.get(key);
    return l.get(l.size() - 1);
  }

  static String unaryMeasure(Unary u, int connections) {
    return "F1 NextFormattedId ("
        + u.format().name()
        + ") vs NextId, h2load -c "
        + connections
        + " -m 1";
  }
}
