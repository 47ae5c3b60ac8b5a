package io.leaf.bench;

import io.grpc.ManagedChannel;
import io.leaf.bench.FormattedTags.Format;
import io.leaf.bench.FormattedTags.Reading;
import io.leaf.v1.FormattedIdBatch;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
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

  /** The streams measured: the plain format at each of P2's chunk sizes, the opaque at the last. */
  private List<Batch> batches() {
    List<Batch> out = new ArrayList<>();
    for (int chunk : options.chunks()) {
      out.add(new Batch(FormattedTags.PLAIN, options.batchCount(), chunk));
    }
    // FF1 costs microseconds a value: a tenth of the count keeps one call near a second.
    out.add(
        new Batch(
            FormattedTags.OPAQUE,
            options.batchCount() / 10,
            options.chunks().get(options.chunks().size() - 1)));
    return out;
  }

  record Batch(Format format, int count, int chunk) {}

  void run() throws Exception {
    Optional<H2Load> found = H2Load.find();
    if (found.isEmpty()) {
      String skipped = "skipped: h2load not on PATH (Debian: apt-get install nghttp2-client)";
      for (Unary u : UNARY.subList(1, UNARY.size())) {
        for (int c : CONNECTIONS) {
          table.add(unaryMeasure(u, c), skipped, "—", "—");
        }
      }
      for (Batch b : batches()) {
        table.add(batchMeasure(b), skipped, "—", "—");
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
        FormattedTags.create(channel, options.largeStep());
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
                          options.warmup(),
                          CONNECTIONS.get(i),
                          1)
                      .requestsPerSecond();
            }
            return rates;
          });
    }
    List<Batch> batches = batches();
    for (Batch b : batches) {
      stream(channel, b, options.warmup());
    }
    // rates.get(unary name + " -c " + connections): one figure per round
    Map<String, List<Double>> rates = new LinkedHashMap<>();
    Map<Batch, List<Double>> streamed = new LinkedHashMap<>();
    int unchecked = 0;
    for (int round = 1; round <= options.rounds(); round++) {
      for (int c : CONNECTIONS) {
        for (Unary u : rotated(UNARY, round)) {
          Reading before = reading(channel, u);
          H2Load.Run run =
              h2load.run(port, u.fullMethod(), u.request(), options.unaryDuration(), c, 1);
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
            options.rounds(),
            last(rates, key(UNARY.get(0), c)),
            last(rates, key(UNARY.get(1), c)),
            last(rates, key(UNARY.get(2), c)));
      }
      for (Batch b : batches) {
        double perSecond = stream(channel, b, options.batchDuration());
        streamed.computeIfAbsent(b, k -> new ArrayList<>()).add(perSecond);
        Progress.say(
            "formatted rows, NextFormattedIdBatch %s chunk %,d, round %d/%d: %,.0f" + " values/s",
            b.format().name(), b.chunk(), round, options.rounds(), perSecond);
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
                + ms(options.unaryDuration())
                + " per call type per round, NextId, plain and opaque in rotating order; "
                + servers.build
                + " alone in a JVM (default flags and --format-key-file of 64"
                + " hex digits); format "
                + u.format().describe()
                + ", zone UTC; tag steps "
                + fmt(options.largeStep())
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
            verdict("NextFormattedId ÷ NextId", Stats.median(perRound(mine, base)), goal));
      }
    }
  }

  private void batchRows(Map<String, List<Double>> rates, Map<Batch, List<Double>> streamed) {
    int c = CONNECTIONS.get(CONNECTIONS.size() - 1);
    for (Map.Entry<Batch, List<Double>> e : streamed.entrySet()) {
      Batch b = e.getKey();
      List<Double> unary = rates.get(key(unaryOf(b.format()), c));
      table.add(
          batchMeasure(b),
          "count "
              + fmt(b.count())
              + " per call, chunk_size "
              + fmt(b.chunk())
              + ", calls one"
              + " after another for "
              + ms(options.batchDuration())
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
          verdict("stream ÷ unary", Stats.median(perRound(e.getValue(), unary)), BATCH_GOAL));
    }
  }

  /** Values per second of NextFormattedIdBatch calls made one after another for {@code time}. */
  private static double stream(ManagedChannel channel, Batch b, Duration time) {
    NextIdBatchRequest request =
        NextIdBatchRequest.newBuilder()
            .setBizTag(b.format().tag())
            .setCount(b.count())
            .setChunkSize(b.chunk())
            .build();
    long values = 0;
    long start = System.nanoTime();
    long end = start + time.toNanos();
    do {
      long got = 0;
      Iterator<FormattedIdBatch> it =
          LeafServiceGrpc.newBlockingStub(channel)
              .withDeadlineAfter(60, TimeUnit.SECONDS)
              .nextFormattedIdBatch(request);
      while (it.hasNext()) {
        got += it.next().getValuesCount();
      }
      if (got != b.count()) {
        throw new IllegalStateException(
            "NextFormattedIdBatch of " + b.count() + " ended after " + got + " values");
      }
      values += got;
    } while (System.nanoTime() < end);
    return values * 1e9 / (System.nanoTime() - start);
  }

  private static Reading reading(ManagedChannel channel, Unary u) {
    return u.format() == null
        ? FormattedTags.nextId(channel, IsolatedServers.TAG)
        : FormattedTags.nextFormatted(channel, u.format());
  }

  /** {@code list} rotated left by {@code round - 1}: each call takes each place in turn. */
  static <T> List<T> rotated(List<T> list, int round) {
    int shift = Math.floorMod(round - 1, list.size());
    List<T> out = new ArrayList<>(list.subList(shift, list.size()));
    out.addAll(list.subList(0, shift));
    return out;
  }

  /** {@code a[i] ÷ b[i]} for each round (a side that completed nothing counts as 1 call/s). */
  static List<Double> perRound(List<Double> a, List<Double> b) {
    List<Double> out = new ArrayList<>();
    for (int i = 0; i < a.size(); i++) {
      out.add(a.get(i) / Math.max(1, b.get(i)));
    }
    return out;
  }

  /**
   * The ratio cell: {@code "what = 0.93 (goal ≥ 0.9: met)"}; one more digit where two would round a
   * miss up to the goal (0.798 shows as 0.798, not 0.80).
   */
  static String verdict(String what, double ratio, double goal) {
    String shown =
        ratio >= 10
            ? String.format(Locale.ROOT, "%,.0f", ratio)
            : String.format(Locale.ROOT, "%.2f", ratio);
    if (ratio < goal && Double.parseDouble(shown.replace(",", "")) >= goal) {
      shown = String.format(Locale.ROOT, ratio >= 10 ? "%,.1f" : "%.3f", ratio);
    }
    String goalShown =
        goal >= 10
            ? String.format(Locale.ROOT, "%,.0f", goal)
            : String.format(Locale.ROOT, "%s", goal);
    return what
        + " = "
        + shown
        + " (goal ≥ "
        + goalShown
        + ": "
        + (ratio >= goal ? "met" : "missed")
        + ")";
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

  static String batchMeasure(Batch b) {
    return "F2 NextFormattedIdBatch ("
        + b.format().name()
        + ") vs unary NextFormattedId, chunk "
        + fmt(b.chunk());
  }

  private static String fmt(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  private static String ms(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }
}
