package io.leaf.bench;

import ch.qos.logback.classic.Level;
import io.grpc.health.v1.HealthCheckRequest;
import io.leaf.bench.jmh.ClientBenchmark;
import io.leaf.v1.NextIdRequest;
import java.io.File;
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
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code make bench}: starts two real Leaf servers in this JVM (one plain, one whose segment loads
 * are delayed), drives them from a load generator in a separate JVM, measures heap per tag in a
 * third, runs the JMH benchmarks, then prints the table and writes it to {@code --out}.
 *
 * <p>Every figure is the median of several rounds, and every ratio compares two figures measured in
 * the same run, alternating their order, because the machine is assumed shared and noisy.
 */
public final class Bench {

  private static final String H2LOAD_TAG = "bench.h2load";
  private static final int H2LOAD_CONNECTIONS = 4;
  private static final int H2LOAD_STREAMS = 16;

  private final BenchOptions options;
  private final ResultsTable table = new ResultsTable();
  private final EngineRows engineRows;

  private Bench(BenchOptions options) {
    this.options = options;
    this.engineRows = new EngineRows(options, table);
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
    if (!options.only().isEmpty()) {
      return onlyParts(started, env, tempDir, dbUrl);
    }
    if (options.isolatedOnly()) {
      return isolatedOnly(started, env, tempDir, dbUrl);
    }
    if (options.rangesOnly()) {
      return rangesOnly(started, env, tempDir, dbUrl);
    }
    String serverDescription;
    try (BenchServer plain =
            BenchServer.start(
                dbUrl, options.dbUser(), options.dbPassword(), Duration.ZERO, options.largeStep());
        BenchServer delayed =
            BenchServer.start(
                dbUrl,
                options.dbUser(),
                options.dbPassword(),
                options.loadDelay(),
                options.smallStep());
        BenchServer undelayed =
            BenchServer.start(
                dbUrl,
                options.dbUser(),
                options.dbPassword(),
                Duration.ZERO,
                options.smallStep())) {
      undelayed.ensureTag(LoadGenerator.UNDELAYED_TAG, options.smallStep());
      plain.ensureTag(LoadGenerator.UNARY_TAG, options.largeStep());
      plain.ensureTag(LoadGenerator.BATCH_TAG, options.largeStep());
      plain.ensureTag(ClientBenchmark.TAG, options.largeStep());
      delayed.ensureTag(LoadGenerator.SMALL_STEP_TAG, options.smallStep());
      delayed.ensureTag(LoadGenerator.LARGE_STEP_TAG, options.largeStep());
      serverDescription = "P1/P2: " + plain.describe() + "; P3: " + delayed.describe();
      Progress.say(
          "servers on ports %d (plain) and %d (delayed), database %s",
          plain.port(), delayed.port(), dbUrl);

      List<String> generatorArgs =
          new ArrayList<>(
              List.of(
                  Integer.toString(plain.port()),
                  Integer.toString(delayed.port()),
                  Integer.toString(undelayed.port())));
      generatorArgs.addAll(options.toArgs());
      Progress.say("load generator JVM: P1, P2, P3 × %d rounds", options.rounds());
      Counts before = Counts.of(delayed);
      List<Map<String, String>> load =
          ChildJvm.run(List.of(), LoadGenerator.class, generatorArgs, generatorTimeoutSeconds());
      unaryRows(load);
      batchRows(load);
      latencyRows(load, Counts.of(delayed).minus(before));
      h2loadRow(plain, load);
      Progress.say("isolated servers: h2load, a stalled database, unread streams");
      isolated(tempDir);
      Progress.say("formatted IDs: h2load and streams against an isolated server");
      new FormattedRows(isolatedServers(tempDir), table, tempDir).run();

      double unaryNextId =
          Stats.median(
              values(
                  select(
                      load,
                      "p1",
                      r -> r.get("concurrency").equals(Integer.toString(lastConcurrency()))),
                  "nextId"));
      new HttpRows(options, table).wrkRow(plain, unaryNextId, lastConcurrency());
      engineRows.jmhRows(plain.port(), unaryNextId, lastConcurrency());
      new CacheRows(options, table).run();
      new RangeRows(options, table).reserveRow(plain, unaryNextId, lastConcurrency());
      new SnowflakeRows(options, table).run(plain.port());
      regionRow();
      ledgerRow();
      startupRow();
      orderingRows();
    } finally {
      if (tempDir != null) {
        deleteTree(tempDir);
      }
    }
    engineRows.heapRow();

    Duration wall = Duration.between(started, Instant.now());
    String text =
        "# Leaf benchmark results\n\n"
            + "- Run: "
            + started.truncatedTo(ChronoUnit.SECONDS)
            + ", wall time "
            + wall.toSeconds() / 60
            + " min "
            + wall.toSeconds() % 60
            + " s"
            + (options.quick() ? ", **--quick: tiny durations, the numbers mean nothing**" : "")
            + "\n"
            + "- Machine: "
            + env.describe()
            + "\n"
            + "- Servers (in the bench JVM): "
            + serverDescription
            + "; database "
            + (options.dbUrl() == null ? "embedded H2 in a temp dir" : options.dbUrl())
            + "\n"
            + "- Client: a separate JVM (same java, default flags), one Netty channel over"
            + " loopback\n"
            + "- Each figure is the median of "
            + options.rounds()
            + " rounds; P1–P3 ratios are the"
            + " median of per-round ratios, P4 ratios the ratio of medians\n\n"
            + table.markdown();
    return write(text);
  }

  /** Only the parts named by {@code --only}, in the order of the full run. */
  private String onlyParts(Instant started, Environment env, Path tempDir, String dbUrl)
      throws Exception {
    String serverDescription = "";
    try {
      if (options.runs("latency")) {
        try (BenchServer plain =
                BenchServer.start(
                    dbUrl,
                    options.dbUser(),
                    options.dbPassword(),
                    Duration.ZERO,
                    options.largeStep());
            BenchServer delayed =
                BenchServer.start(
                    dbUrl,
                    options.dbUser(),
                    options.dbPassword(),
                    options.loadDelay(),
                    options.smallStep());
            BenchServer undelayed =
                BenchServer.start(
                    dbUrl,
                    options.dbUser(),
                    options.dbPassword(),
                    Duration.ZERO,
                    options.smallStep())) {
          undelayed.ensureTag(LoadGenerator.UNDELAYED_TAG, options.smallStep());
          delayed.ensureTag(LoadGenerator.SMALL_STEP_TAG, options.smallStep());
          delayed.ensureTag(LoadGenerator.LARGE_STEP_TAG, options.largeStep());
          serverDescription = "P3: " + delayed.describe() + "; ";
          List<String> generatorArgs =
              new ArrayList<>(
                  List.of(
                      Integer.toString(plain.port()),
                      Integer.toString(delayed.port()),
                      Integer.toString(undelayed.port())));
          generatorArgs.addAll(options.toArgs());
          Progress.say("load generator JVM: P3 × %d rounds", options.rounds());
          Counts before = Counts.of(delayed);
          List<Map<String, String>> load =
              ChildJvm.run(
                  List.of(), LoadGenerator.class, generatorArgs, generatorTimeoutSeconds());
          latencyRows(load, Counts.of(delayed).minus(before));
        }
      }
      if (options.runs("bare")) {
        new BareServerRows(isolatedServers(tempDir), table).run();
      }
      if (options.runs("formatted")) {
        new FormattedRows(isolatedServers(tempDir), table, tempDir).run();
      }
      if (options.runs("tokens")) {
        tokenRows(tempDir);
      }
    } finally {
      if (tempDir != null) {
        deleteTree(tempDir);
      }
    }
    if (options.runs("cache")) {
      new CacheRows(options, table).run();
    }
    if (options.runs("regions")) {
      regionRow();
    }
    if (options.runs("ledger")) {
      ledgerRow();
    }
    if (options.runs("startup")) {
      startupRow();
    }
    if (options.runs("ordering")) {
      orderingRows();
    }
    String text =
        "# Leaf benchmark results ("
            + String.join(", ", options.only())
            + " only)\n\n"
            + "- Run: "
            + started.truncatedTo(ChronoUnit.SECONDS)
            + "\n"
            + "- Machine: "
            + env.describe()
            + "\n"
            + "- "
            + serverDescription
            + "database "
            + (options.dbUrl() == null ? "embedded H2 in a temp dir" : dbUrl)
            + "\n"
            + "- Each figure is the median of "
            + options.rounds()
            + " rounds\n\n"
            + table.markdown();
    return write(text);
  }

  /** Only the ID-range rows: ReserveIds vs unary NextId, CachedIdGenerator vs AtomicLong. */
  private String rangesOnly(Instant started, Environment env, Path tempDir, String dbUrl)
      throws Exception {
    String serverDescription;
    try (BenchServer plain =
        BenchServer.start(
            dbUrl, options.dbUser(), options.dbPassword(), Duration.ZERO, options.largeStep())) {
      plain.ensureTag(ClientBenchmark.TAG, options.largeStep());
      serverDescription = plain.describe();
      RangeRows ranges = new RangeRows(options, table);
      ranges.reserveRow(plain, ranges.unaryNextId(plain, lastConcurrency()), lastConcurrency());
      engineRows.clientRows(plain.port(), null, 0, 0);
    } finally {
      if (tempDir != null) {
        deleteTree(tempDir);
      }
    }
    String text =
        "# Leaf benchmark results (ID-range rows only)\n\n"
            + "- Run: "
            + started.truncatedTo(ChronoUnit.SECONDS)
            + "\n"
            + "- Machine: "
            + env.describe()
            + "\n"
            + "- Server (in the bench JVM): "
            + serverDescription
            + "; database "
            + (options.dbUrl() == null ? "embedded H2 in a temp dir" : dbUrl)
            + "\n"
            + "- Each figure is the median of "
            + options.rounds()
            + " rounds\n\n"
            + table.markdown();
    return write(text);
  }

  /** Only the isolated-server rows, e.g. to measure another build's server beside this one's. */
  private String isolatedOnly(Instant started, Environment env, Path tempDir, String dbUrl)
      throws Exception {
    try {
      isolated(tempDir);
    } finally {
      if (tempDir != null) {
        deleteTree(tempDir);
      }
    }
    String text =
        "# Leaf benchmark results (isolated-server rows only)\n\n"
            + "- Run: "
            + started.truncatedTo(ChronoUnit.SECONDS)
            + "\n"
            + "- Machine: "
            + env.describe()
            + "\n"
            + "- Server: "
            + (options.serverClassPath() == null
                ? "this build"
                : options.serverClassPath().split(File.pathSeparator)[0])
            + "; database "
            + (options.dbUrl() == null ? "embedded H2 in a temp dir" : dbUrl)
            + "\n"
            + "- Each figure is the median of "
            + options.rounds()
            + " rounds\n\n"
            + table.markdown();
    return write(text);
  }

  /** Prints the results and writes them to {@code --out}; returns them. */
  private String write(String text) throws IOException {
    Path out = options.out().toAbsolutePath();
    Files.createDirectories(out.getParent());
    Files.writeString(out, text);
    Path json = out.resolveSibling("results.json");
    Files.writeString(json, table.json());
    System.out.println();
    System.out.println(text);
    Progress.say("written to %s and %s", out, json);
    return text;
  }

  /** The rows against a server alone in its JVM, on a database file of their own or --db-url. */
  private void isolated(Path tempDir) throws Exception {
    IsolatedServers servers = isolatedServers(tempDir);
    new IsolatedH2Load(servers, table).run();
    new BareServerRows(servers, table).run();
    tokenRows(tempDir);
    new ServerStress(servers, table).run();
  }

  /** P9: the scoped-token server on a database of its own (H2: a file beside the other's). */
  private void tokenRows(Path tempDir) throws Exception {
    Path dir = tempDir != null ? tempDir : Files.createTempDirectory("leaf-bench-tokens");
    try {
      IsolatedServers scoped =
          new IsolatedServers(
              options,
              tempDir == null
                  ? options.dbUrl()
                  : "jdbc:h2:file:" + tempDir.resolve("isolated-tokens") + ";MODE=MySQL");
      new TokenRows(isolatedServers(tempDir), scoped, table).run(dir);
    } finally {
      if (tempDir == null) {
        deleteTree(dir);
      }
    }
  }

  /** P11, on --db-url when given (MariaDB), else on an H2 file in a directory of its own. */
  private void ledgerRow() throws Exception {
    if (options.dbUrl() != null) {
      new LedgerRows(options, table).run(options.dbUrl(), options.dbUser(), options.dbPassword());
      return;
    }
    Path dir = Files.createTempDirectory("leaf-bench-ledger");
    try {
      new LedgerRows(options, table)
          .run("jdbc:h2:file:" + dir.resolve("ledger") + ";MODE=MySQL", "sa", "");
    } finally {
      deleteTree(dir);
    }
  }

  /** P12, on H2 files in a directory of its own. */
  private void startupRow() throws Exception {
    Path dir = Files.createTempDirectory("leaf-bench-startup");
    try {
      new StartupRows(options, table).run(dir);
    } finally {
      deleteTree(dir);
    }
  }

  /** P10, on two H2 files in a directory of its own (whatever --db-url says: see RegionRows). */
  /** O1–O3, on H2 files in a directory of their own. */
  private void orderingRows() throws Exception {
    Path dir = Files.createTempDirectory("leaf-bench-ordering");
    try {
      new OrderingRows(options, table).run(dir);
    } finally {
      deleteTree(dir);
    }
  }

  private void regionRow() throws Exception {
    Path dir = Files.createTempDirectory("leaf-bench-regions");
    try {
      new RegionRows(options, table).run(dir, lastConcurrency());
    } finally {
      deleteTree(dir);
    }
  }

  private IsolatedServers isolatedServers(Path tempDir) {
    return new IsolatedServers(
        options,
        tempDir == null
            ? options.dbUrl()
            : "jdbc:h2:file:" + tempDir.resolve("isolated") + ";MODE=MySQL");
  }

  private long generatorTimeoutSeconds() {
    Duration perRound =
        options
            .unaryDuration()
            .multipliedBy(2L * options.concurrencies().size())
            .plus(options.batchDuration().multipliedBy(options.chunks().size()))
            .plus(options.latencyDuration().multipliedBy(2));
    return options
            .warmup()
            .multipliedBy(5)
            .plus(perRound.multipliedBy(options.rounds()))
            .multipliedBy(2)
            .toSeconds()
        + 120;
  }

  private void unaryRows(List<Map<String, String>> load) {
    for (int c : options.concurrencies()) {
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
              + ms(options.unaryDuration())
              + " per call type per round,"
              + " order alternating; NextId tag step "
              + fmt(options.largeStep()),
          String.format(Locale.ROOT, "NextId %,.0f/s · Check %,.0f/s", nextId, check),
          String.format(Locale.ROOT, "NextId ÷ Check = %.2f", ratio));
    }
  }

  private void batchRows(List<Map<String, String>> load) {
    int reference = lastConcurrency();
    for (int chunk : options.chunks()) {
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
              + fmt(options.batchCount())
              + " per call, chunk_size "
              + fmt(chunk)
              + ", calls one after another for "
              + ms(options.batchDuration())
              + " per round, each read by a blocking stub; unary = P1 NextId at "
              + reference
              + " in flight in the same round; tag step "
              + fmt(options.largeStep()),
          String.format(
              Locale.ROOT,
              "%,.0f IDs/s (unary %,.0f IDs/s)",
              Stats.median(values(rounds, "idsPerSecond")),
              Stats.median(unary)),
          String.format(Locale.ROOT, "stream ÷ unary = %.1f", Stats.median(ratios)));
    }
  }

  /** What the P3 server counted: waits for a load, segments dropped out of order. */
  private record Counts(long waits, long drops) {
    static Counts of(BenchServer server) throws Exception {
      return new Counts(
          server.counter("leaf_segment_waits_total"), server.counter("leaf_segment_drops_total"));
    }

    Counts minus(Counts earlier) {
      return new Counts(waits - earlier.waits, drops - earlier.drops);
    }
  }

  private void latencyRows(List<Map<String, String>> load, Counts counted) {
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
            + fmt(options.smallStep())
            + " vs "
            + fmt(options.largeStep()),
        "+"
            + options.loadDelay().toMillis()
            + " ms on every segment load, server max-step "
            + fmt(options.smallStep())
            + " (so step "
            + fmt(options.smallStep())
            + " stays), "
            + options.latencyConcurrency()
            + " in flight (closed loop), "
            + ms(options.latencyDuration())
            + " per tag per round, order alternating; the"
            + " server counted "
            + fmt(counted.waits())
            + " waits for a load and "
            + fmt(counted.drops())
            + " segments dropped out of order (both tags, all rounds,"
            + " first loads and warm-up included)",
        "step "
            + fmt(options.smallStep())
            + ": "
            + percentiles(small)
            + " · step "
            + fmt(options.largeStep())
            + ": "
            + percentiles(large),
        String.format(
            Locale.ROOT,
            "p99.9 step %s ÷ step %s = %.2f",
            fmt(options.smallStep()),
            fmt(options.largeStep()),
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
            + fmt(options.smallStep())
            + " with +"
            + options.loadDelay().toMillis()
            + " ms loads vs step "
            + fmt(options.smallStep())
            + " without",
        "the same step on a second server of the same database whose loads have no added delay"
            + " (max-step "
            + fmt(options.smallStep())
            + "), measured in the same rounds: the"
            + " ratio is the database's share of the tail, which the prefetch must hide (goal"
            + " ≤ 1.2); the row above is the cost of a load every "
            + fmt(options.smallStep())
            + " IDs against step "
            + fmt(options.largeStep()),
        "+"
            + options.loadDelay().toMillis()
            + " ms: "
            + percentiles(small)
            + " · no delay: "
            + percentiles(undelayed),
        String.format(
            Locale.ROOT,
            "p99.9 +%d ms ÷ no delay = %.2f",
            options.loadDelay().toMillis(),
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

  /** P1 again from a client outside the JVM: h2load, when installed. */
  private void h2loadRow(BenchServer plain, List<Map<String, String>> load) throws Exception {
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
                    r -> r.get("concurrency").equals(Integer.toString(lastConcurrency()))),
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
            lastConcurrency(),
            jvmClient),
        String.format(Locale.ROOT, "NextId ÷ Check = %.2f", Stats.median(ratios)));
  }

  private int lastConcurrency() {
    return options.concurrencies().get(options.concurrencies().size() - 1);
  }

  static List<Map<String, String>> select(
      List<Map<String, String>> results, String measure, Predicate<Map<String, String>> filter) {
    List<Map<String, String>> selected =
        results.stream().filter(r -> measure.equals(r.get("measure"))).filter(filter).toList();
    if (selected.isEmpty()) {
      throw new IllegalStateException("no " + measure + " results");
    }
    return selected;
  }

  static List<Double> values(List<Map<String, String>> rounds, String key) {
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
