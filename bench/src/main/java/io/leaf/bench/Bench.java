package io.leaf.bench;

import ch.qos.logback.classic.Level;
import io.grpc.health.v1.HealthCheckRequest;
import io.leaf.bench.jmh.ClientBenchmark;
import io.leaf.bench.jmh.EngineBenchmark;
import io.leaf.v1.NextIdRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code make bench}: starts two real Leaf servers in this JVM (one plain, one whose segment loads
 * are delayed), drives them from a load generator in a separate JVM, measures heap per tag in a
 * third, runs the JMH benchmarks, then prints the table and writes it to {@code --out}.
 *
 * <p>Every figure is the median of several rounds, and every ratio compares two figures measured
 * in the same run, alternating their order, because the machine is assumed shared and noisy.
 */
public final class Bench {

  private static final String H2LOAD_TAG = "bench.h2load";
  private static final int H2LOAD_CONNECTIONS = 4;
  private static final int H2LOAD_STREAMS = 16;

  private final BenchOptions options;
  private final ResultsTable table = new ResultsTable();

  private Bench(BenchOptions options) {
    this.options = options;
  }

  public static void main(String[] args) throws Exception {
    BenchOptions options;
    try {
      options = BenchOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("leaf-bench: " + e.getMessage());
      System.exit(2);
      return;
    }
    // The servers' INFO lines would drown the progress lines.
    ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME))
        .setLevel(Level.WARN);
    ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger("com.zaxxer.hikari"))
        .setLevel(Level.WARN);
    run(options);
    System.exit(0);
  }

  /** Runs everything, writes the results file and returns its text. */
  public static String run(BenchOptions options) throws Exception {
    return new Bench(options).runAll();
  }

  private String runAll() throws Exception {
    Instant started = Instant.now();
    Environment env = Environment.current();
    Progress.say("Leaf benchmarks%s on %s", options.quick() ? " (--quick)" : "", env.describe());
    Path tempDir = null;
    String dbUrl = options.dbUrl();
    if (dbUrl == null) {
      tempDir = Files.createTempDirectory("leaf-bench");
      dbUrl = "jdbc:h2:file:" + tempDir.resolve("leaf") + ";MODE=MySQL";
    }
    String serverDescription;
    try (BenchServer plain = BenchServer.start(dbUrl, options.dbUser(), options.dbPassword(),
            Duration.ZERO, options.largeStep());
        BenchServer delayed = BenchServer.start(dbUrl, options.dbUser(), options.dbPassword(),
            options.loadDelay(), options.smallStep())) {
      plain.ensureTag(LoadGenerator.UNARY_TAG, options.largeStep());
      plain.ensureTag(LoadGenerator.BATCH_TAG, options.largeStep());
      plain.ensureTag(ClientBenchmark.TAG, options.largeStep());
      delayed.ensureTag(LoadGenerator.SMALL_STEP_TAG, options.smallStep());
      delayed.ensureTag(LoadGenerator.LARGE_STEP_TAG, options.largeStep());
      serverDescription = "P1/P2: " + plain.describe() + "; P3: " + delayed.describe();
      Progress.say("servers on ports %d (plain) and %d (delayed), database %s", plain.port(),
          delayed.port(), dbUrl);

      List<String> generatorArgs = new ArrayList<>(List.of(Integer.toString(plain.port()),
          Integer.toString(delayed.port())));
      generatorArgs.addAll(options.toArgs());
      Progress.say("load generator JVM: P1, P2, P3 × %d rounds", options.rounds());
      List<Map<String, String>> load = ChildJvm.run(List.of(), LoadGenerator.class,
          generatorArgs, generatorTimeoutSeconds());
      unaryRows(load);
      batchRows(load);
      latencyRows(load);
      h2loadRow(plain, load);

      jmhRows(plain.port(), Stats.median(values(select(load, "p1",
          r -> r.get("concurrency").equals(Integer.toString(lastConcurrency()))), "nextId")));
    } finally {
      if (tempDir != null) {
        deleteTree(tempDir);
      }
    }
    heapRow();

    Duration wall = Duration.between(started, Instant.now());
    String text = "# Leaf benchmark results\n\n"
        + "- Run: " + started.truncatedTo(ChronoUnit.SECONDS) + ", wall time "
        + wall.toSeconds() / 60 + " min " + wall.toSeconds() % 60 + " s" + (options.quick()
            ? ", **--quick: tiny durations, the numbers mean nothing**" : "") + "\n"
        + "- Machine: " + env.describe() + "\n"
        + "- Servers (in the bench JVM): " + serverDescription + "; database "
        + (options.dbUrl() == null ? "embedded H2 in a temp dir" : options.dbUrl()) + "\n"
        + "- Client: a separate JVM (same java, default flags), one Netty channel over loopback\n"
        + "- Each figure is the median of " + options.rounds() + " rounds; P1–P3 ratios are the"
        + " median of per-round ratios, P4 ratios the ratio of medians\n\n"
        + table.markdown();
    Path out = options.out().toAbsolutePath();
    Files.createDirectories(out.getParent());
    Files.writeString(out, text);
    System.out.println();
    System.out.println(text);
    Progress.say("written to %s", out);
    return text;
  }

  private long generatorTimeoutSeconds() {
    Duration perRound = options.unaryDuration().multipliedBy(2L * options.concurrencies().size())
        .plus(options.batchDuration().multipliedBy(options.chunks().size()))
        .plus(options.latencyDuration().multipliedBy(2));
    return options.warmup().multipliedBy(5).plus(perRound.multipliedBy(options.rounds()))
        .multipliedBy(2).toSeconds() + 120;
  }

  private void unaryRows(List<Map<String, String>> load) {
    for (int c : options.concurrencies()) {
      List<Map<String, String>> rounds = select(load, "p1", r -> r.get("concurrency").equals(
          Integer.toString(c)));
      double nextId = Stats.median(values(rounds, "nextId"));
      double check = Stats.median(values(rounds, "check"));
      double ratio = Stats.median(rounds.stream()
          .map(r -> num(r, "nextId") / num(r, "check")).toList());
      table.add("P1 unary NextId vs Health/Check, " + c + " in flight",
          "async stubs on one channel (Netty, 127.0.0.1, plaintext, direct executor), " + c
              + " in flight, " + ms(options.unaryDuration()) + " per call type per round,"
              + " order alternating; NextId tag step " + fmt(options.largeStep()),
          String.format(Locale.ROOT, "NextId %,.0f/s · Check %,.0f/s", nextId, check),
          String.format(Locale.ROOT, "NextId ÷ Check = %.2f", ratio));
    }
  }

  private void batchRows(List<Map<String, String>> load) {
    int reference = lastConcurrency();
    for (int chunk : options.chunks()) {
      List<Map<String, String>> rounds = select(load, "p2",
          r -> r.get("chunk").equals(Integer.toString(chunk)));
      List<Double> ratios = new ArrayList<>();
      List<Double> unary = new ArrayList<>();
      for (Map<String, String> r : rounds) {
        Map<String, String> sameRound = select(load, "p1", u -> u.get("round").equals(r.get("round"))
            && u.get("concurrency").equals(Integer.toString(reference))).get(0);
        unary.add(num(sameRound, "nextId"));
        ratios.add(num(r, "idsPerSecond") / num(sameRound, "nextId"));
      }
      table.add("P2 NextIdBatch stream vs unary NextId, chunk " + fmt(chunk),
          "count " + fmt(options.batchCount()) + " per call, chunk_size " + fmt(chunk)
              + ", calls one after another for " + ms(options.batchDuration())
              + " per round, each read by a blocking stub; unary = P1 NextId at " + reference
              + " in flight in the same round; tag step " + fmt(options.largeStep()),
          String.format(Locale.ROOT, "%,.0f IDs/s (unary %,.0f IDs/s)",
              Stats.median(values(rounds, "idsPerSecond")), Stats.median(unary)),
          String.format(Locale.ROOT, "stream ÷ unary = %.1f", Stats.median(ratios)));
    }
  }

  private void latencyRows(List<Map<String, String>> load) {
    List<Map<String, String>> small = select(load, "p3",
        r -> r.get("tag").equals(LoadGenerator.SMALL_STEP_TAG));
    List<Map<String, String>> large = select(load, "p3",
        r -> r.get("tag").equals(LoadGenerator.LARGE_STEP_TAG));
    List<Double> ratios = new ArrayList<>();
    for (Map<String, String> s : small) {
      Map<String, String> l = large.stream().filter(r -> r.get("round").equals(s.get("round")))
          .findFirst().orElseThrow();
      ratios.add(num(s, "p999") / num(l, "p999"));
    }
    table.add("P3 NextId latency with slow segment loads, step " + fmt(options.smallStep())
            + " vs " + fmt(options.largeStep()),
        "+" + options.loadDelay().toMillis() + " ms on every segment load, server max-step "
            + fmt(options.smallStep()) + " (so step " + fmt(options.smallStep()) + " stays), "
            + options.latencyConcurrency() + " in flight (closed loop), "
            + ms(options.latencyDuration()) + " per tag per round, order alternating",
        "step " + fmt(options.smallStep()) + ": " + percentiles(small) + " · step "
            + fmt(options.largeStep()) + ": " + percentiles(large),
        String.format(Locale.ROOT, "p99.9 step %s ÷ step %s = %.1f", fmt(options.smallStep()),
            fmt(options.largeStep()), Stats.median(ratios)));
  }

  private static String percentiles(List<Map<String, String>> rounds) {
    return String.format(Locale.ROOT, "p50 %,.0f µs, p99 %,.0f µs, p99.9 %,.0f µs (%,.0f calls/s)",
        Stats.median(values(rounds, "p50")), Stats.median(values(rounds, "p99")),
        Stats.median(values(rounds, "p999")), Stats.median(values(rounds, "qps")));
  }

  /** P1 again from a client outside the JVM: h2load, when installed. */
  private void h2loadRow(BenchServer plain, List<Map<String, String>> load) throws Exception {
    String measure = "P1 from h2load (C client): NextId vs Health/Check, "
        + H2LOAD_CONNECTIONS * H2LOAD_STREAMS + " in flight";
    Optional<H2Load> found = H2Load.find();
    if (found.isEmpty()) {
      Progress.say("h2load not found: skipping its row (apt-get install nghttp2-client)");
      table.add(measure, "skipped: h2load not on PATH (Debian: apt-get install nghttp2-client)",
          "—", "—");
      return;
    }
    H2Load h2load = found.get();
    plain.ensureTag(H2LOAD_TAG, options.largeStep());
    byte[] nextId = NextIdRequest.newBuilder().setBizTag(H2LOAD_TAG).build().toByteArray();
    byte[] check = HealthCheckRequest.getDefaultInstance().toByteArray();
    Duration each = options.unaryDuration();
    List<Double> nextIdRates = new ArrayList<>();
    List<Double> checkRates = new ArrayList<>();
    List<Double> ratios = new ArrayList<>();
    for (int round = 1; round <= options.rounds(); round++) {
      Progress.say("h2load round %d/%d", round, options.rounds());
      H2Load.Run n = null;
      H2Load.Run c = null;
      for (int i = 0; i < 2; i++) {
        // Alternate which call goes first, as the JVM generator does.
        if ((i + round) % 2 == 0) {
          long before = plain.nextId(H2LOAD_TAG);
          n = h2load.run(plain.port(), "leaf.v1.LeafService/NextId", nextId, each,
              H2LOAD_CONNECTIONS, H2LOAD_STREAMS);
          long consumed = plain.nextId(H2LOAD_TAG) - before - 1;
          // gRPC errors arrive after an HTTP 200, so only IDs actually issued prove success.
          if (n.succeeded() == 0 || consumed < n.succeeded()) {
            throw new IllegalStateException("h2load reported " + n.succeeded()
                + " NextId calls but the server issued " + consumed + " IDs");
          }
        } else {
          c = h2load.run(plain.port(), "grpc.health.v1.Health/Check", check, each,
              H2LOAD_CONNECTIONS, H2LOAD_STREAMS);
        }
      }
      nextIdRates.add(n.requestsPerSecond());
      checkRates.add(c.requestsPerSecond());
      ratios.add(n.requestsPerSecond() / c.requestsPerSecond());
    }
    double jvmClient = Stats.median(values(select(load, "p1",
        r -> r.get("concurrency").equals(Integer.toString(lastConcurrency()))), "nextId"));
    table.add(measure, h2load.describe() + " -t 1 -c " + H2LOAD_CONNECTIONS + " -m "
            + H2LOAD_STREAMS + ", " + ms(each) + " per call type per round, order alternating;"
            + " each NextId run checked against the IDs the server issued",
        String.format(Locale.ROOT, "NextId %,.0f/s · Check %,.0f/s (JVM client, %d in flight:"
            + " NextId %,.0f/s)", Stats.median(nextIdRates), Stats.median(checkRates),
            lastConcurrency(), jvmClient),
        String.format(Locale.ROOT, "NextId ÷ Check = %.2f", Stats.median(ratios)));
  }

  private void jmhRows(int plainPort, double unaryNextId) throws Exception {
    JmhRuns jmh = new JmhRuns(options);
    Map<Integer, Double> allocatorByThreads = new TreeMap<>();
    for (int threads : List.of(1, 2)) {
      Progress.say("JMH: SegmentAllocator.nextId, %s", threads(threads));
      double allocator = Stats.median(jmh.run(EngineBenchmark.class, "allocatorNextId", threads));
      Progress.say("JMH: AtomicLong.incrementAndGet, %s", threads(threads));
      double atomic = Stats.median(jmh.run(EngineBenchmark.class, "atomicIncrement", threads));
      allocatorByThreads.put(threads, allocator);
      table.add("P4 SegmentAllocator.nextId vs AtomicLong, " + threads(threads),
          jmh.describe() + ", " + threads(threads) + " on one shared allocator (in-memory store, "
              + "step " + fmt(EngineBenchmark.STEP) + ") / one shared AtomicLong",
          String.format(Locale.ROOT, "allocator %,.1f M ops/s · AtomicLong %,.1f M ops/s",
              allocator / 1e6, atomic / 1e6),
          String.format(Locale.ROOT, "allocator ÷ AtomicLong = %.2f", allocator / atomic));
    }
    String target = "-D" + ClientBenchmark.TARGET_PROPERTY + "=127.0.0.1:" + plainPort;
    for (int threads : List.of(1, 2)) {
      Progress.say("JMH: CachedIdGenerator.next, %s", threads(threads));
      double client = Stats.median(jmh.run(ClientBenchmark.class, "next", threads, target));
      table.add("P4 CachedIdGenerator.next(), " + threads(threads),
          jmh.describe() + ", " + threads(threads) + " on one generator (builder defaults) of one"
              + " LeafClient, refilled over loopback from the P1 server, tag step "
              + fmt(options.largeStep()),
          String.format(Locale.ROOT, "%,.1f M ops/s", client / 1e6),
          String.format(Locale.ROOT, "÷ SegmentAllocator (%s) = %.2f; ÷ unary NextId (P1, %d in"
              + " flight) = %,.0f", threads(threads), client / allocatorByThreads.get(threads),
              lastConcurrency(), client / unaryNextId));
    }
  }

  private static String threads(int n) {
    return n == 1 ? "1 thread" : n + " threads";
  }

  private int lastConcurrency() {
    return options.concurrencies().get(options.concurrencies().size() - 1);
  }

  private void heapRow() throws IOException, InterruptedException {
    List<String> jvmArgs = List.of("-XX:+UseSerialGC", "-Xmx1g");
    Progress.say("heap JVM: %,d tags × %d rounds", options.heapTags(), options.rounds());
    List<Map<String, String>> heap = ChildJvm.run(jvmArgs, HeapPerTag.class,
        List.of(Integer.toString(options.heapTags()), Integer.toString(options.rounds())), 600);
    table.add("Heap per cached tag",
        fmt(options.heapTags()) + " tags each loaded once (InitCache) into a SegmentAllocator on an"
            + " in-memory store, step " + fmt(HeapPerTag.STEP) + ", every buffer in an"
            + " IdleTagSweeper's wheel (idle-ttl " + HeapPerTag.SERVER_DEFAULTS.idleTtl().toMinutes()
            + " min, tick " + HeapPerTag.SERVER_DEFAULTS.sweepTick().toSeconds() + " s); used heap"
            + " after 3× System.gc(), before and after; separate JVM " + String.join(" ", jvmArgs),
        String.format(Locale.ROOT, "%,.0f bytes per tag",
            Stats.median(values(select(heap, "heap", r -> true), "bytesPerTag"))),
        "—");
  }

  private static List<Map<String, String>> select(List<Map<String, String>> results,
      String measure, Predicate<Map<String, String>> filter) {
    List<Map<String, String>> selected = results.stream()
        .filter(r -> measure.equals(r.get("measure")))
        .filter(filter)
        .toList();
    if (selected.isEmpty()) {
      throw new IllegalStateException("no " + measure + " results");
    }
    return selected;
  }

  private static List<Double> values(List<Map<String, String>> rounds, String key) {
    return rounds.stream().map(r -> num(r, key)).toList();
  }

  private static double num(Map<String, String> result, String key) {
    String value = result.get(key);
    if (value == null) {
      throw new IllegalStateException("result has no " + key + ": " + result);
    }
    return Double.parseDouble(value);
  }

  private static String fmt(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  private static String ms(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
