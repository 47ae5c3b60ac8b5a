package io.leaf.bench;

import ch.qos.logback.classic.Level;
import io.leaf.bench.jmh.ClientBenchmark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

  private final BenchOptions options;
  private final ResultsTable table = new ResultsTable();
  private final EngineRows engineRows;
  private final DirectoryRows side;

  private Bench(BenchOptions options) {
    this.options = options;
    this.engineRows = new EngineRows(options, table);
    this.side = new DirectoryRows(options, table);
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
    ResultsFile results = new ResultsFile(options, table, started, env);
    Path tempDir = null;
    String dbUrl = options.targets().dbUrl();
    if (dbUrl == null) {
      tempDir = Files.createTempDirectory("leaf-bench");
      dbUrl = "jdbc:h2:file:" + tempDir.resolve("leaf") + ";MODE=MySQL";
    }
    if (!options.rows().only().isEmpty()) {
      return onlyParts(results, tempDir, dbUrl);
    }
    if (options.rows().isolatedOnly()) {
      return isolatedOnly(results, tempDir, dbUrl);
    }
    if (options.rows().rangesOnly()) {
      return rangesOnly(results, tempDir, dbUrl);
    }
    String serverDescription;
    try (BenchServer plain =
            BenchServer.start(
                dbUrl,
                options.targets().dbUser(),
                options.targets().dbPassword(),
                Duration.ZERO,
                options.load().latency().largeStep());
        BenchServer delayed =
            BenchServer.start(
                dbUrl,
                options.targets().dbUser(),
                options.targets().dbPassword(),
                options.load().latency().loadDelay(),
                options.load().latency().smallStep());
        BenchServer undelayed =
            BenchServer.start(
                dbUrl,
                options.targets().dbUser(),
                options.targets().dbPassword(),
                Duration.ZERO,
                options.load().latency().smallStep())) {
      undelayed.ensureTag(LoadGenerator.UNDELAYED_TAG, options.load().latency().smallStep());
      plain.ensureTag(LoadGenerator.UNARY_TAG, options.load().latency().largeStep());
      plain.ensureTag(LoadGenerator.BATCH_TAG, options.load().latency().largeStep());
      plain.ensureTag(ClientBenchmark.TAG, options.load().latency().largeStep());
      delayed.ensureTag(LoadGenerator.SMALL_STEP_TAG, options.load().latency().smallStep());
      delayed.ensureTag(LoadGenerator.LARGE_STEP_TAG, options.load().latency().largeStep());
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
      Progress.say("load generator JVM: P1, P2, P3 × %d rounds", options.rounds().count());
      LoadRows.Counts before = LoadRows.Counts.of(delayed);
      List<Map<String, String>> load =
          ChildJvm.run(List.of(), LoadGenerator.class, generatorArgs, generatorTimeoutSeconds());
      LoadRows loadRows = new LoadRows(options, table);
      loadRows.unaryRows(load);
      loadRows.batchRows(load);
      loadRows.latencyRows(load, LoadRows.Counts.of(delayed).minus(before));
      new H2LoadRow(options, table).run(plain, load);
      Progress.say("isolated servers: h2load, a stalled database, unread streams");
      isolated(tempDir);
      Progress.say("formatted IDs: h2load and streams against an isolated server");
      new FormattedRows(isolatedServers(tempDir), table, tempDir).run();

      double unaryNextId =
          Stats.median(
              LoadResults.values(
                  LoadResults.select(
                      load,
                      "p1",
                      r ->
                          r.get("concurrency").equals(Integer.toString(options.lastConcurrency()))),
                  "nextId"));
      new HttpRows(options, table).wrkRow(plain, unaryNextId, options.lastConcurrency());
      engineRows.jmhRows(plain.port(), unaryNextId, options.lastConcurrency());
      new CacheRows(options, table).run();
      new RangeRows(options, table).reserveRow(plain, unaryNextId, options.lastConcurrency());
      new SnowflakeRows(options, table).run(plain.port());
      side.regionRow();
      side.ledgerRow();
      side.startupRow();
      side.orderingRows();
    } finally {
      if (tempDir != null) {
        DirectoryRows.deleteTree(tempDir);
      }
    }
    engineRows.heapRow();

    return results.full(serverDescription);
  }

  /** Only the parts named by {@code --only}, in the order of the full run. */
  private String onlyParts(ResultsFile results, Path tempDir, String dbUrl) throws Exception {
    String serverDescription = "";
    try {
      if (options.runs("latency")) {
        try (BenchServer plain =
                BenchServer.start(
                    dbUrl,
                    options.targets().dbUser(),
                    options.targets().dbPassword(),
                    Duration.ZERO,
                    options.load().latency().largeStep());
            BenchServer delayed =
                BenchServer.start(
                    dbUrl,
                    options.targets().dbUser(),
                    options.targets().dbPassword(),
                    options.load().latency().loadDelay(),
                    options.load().latency().smallStep());
            BenchServer undelayed =
                BenchServer.start(
                    dbUrl,
                    options.targets().dbUser(),
                    options.targets().dbPassword(),
                    Duration.ZERO,
                    options.load().latency().smallStep())) {
          undelayed.ensureTag(LoadGenerator.UNDELAYED_TAG, options.load().latency().smallStep());
          delayed.ensureTag(LoadGenerator.SMALL_STEP_TAG, options.load().latency().smallStep());
          delayed.ensureTag(LoadGenerator.LARGE_STEP_TAG, options.load().latency().largeStep());
          serverDescription = "P3: " + delayed.describe() + "; ";
          List<String> generatorArgs =
              new ArrayList<>(
                  List.of(
                      Integer.toString(plain.port()),
                      Integer.toString(delayed.port()),
                      Integer.toString(undelayed.port())));
          generatorArgs.addAll(options.toArgs());
          Progress.say("load generator JVM: P3 × %d rounds", options.rounds().count());
          LoadRows.Counts before = LoadRows.Counts.of(delayed);
          List<Map<String, String>> load =
              ChildJvm.run(
                  List.of(), LoadGenerator.class, generatorArgs, generatorTimeoutSeconds());
          new LoadRows(options, table).latencyRows(load, LoadRows.Counts.of(delayed).minus(before));
        }
      }
      if (options.runs("bare")) {
        new BareServerRows(isolatedServers(tempDir), table).run();
      }
      if (options.runs("formatted")) {
        new FormattedRows(isolatedServers(tempDir), table, tempDir).run();
      }
      if (options.runs("tokens")) {
        side.tokenRows(tempDir, isolatedServers(tempDir));
      }
    } finally {
      if (tempDir != null) {
        DirectoryRows.deleteTree(tempDir);
      }
    }
    if (options.runs("cache")) {
      new CacheRows(options, table).run();
    }
    if (options.runs("regions")) {
      side.regionRow();
    }
    if (options.runs("ledger")) {
      side.ledgerRow();
    }
    if (options.runs("startup")) {
      side.startupRow();
    }
    if (options.runs("ordering")) {
      side.orderingRows();
    }
    return results.only(serverDescription, dbUrl);
  }

  /** Only the ID-range rows: ReserveIds vs unary NextId, CachedIdGenerator vs AtomicLong. */
  private String rangesOnly(ResultsFile results, Path tempDir, String dbUrl) throws Exception {
    String serverDescription;
    try (BenchServer plain =
        BenchServer.start(
            dbUrl,
            options.targets().dbUser(),
            options.targets().dbPassword(),
            Duration.ZERO,
            options.load().latency().largeStep())) {
      plain.ensureTag(ClientBenchmark.TAG, options.load().latency().largeStep());
      serverDescription = plain.describe();
      RangeRows ranges = new RangeRows(options, table);
      ranges.reserveRow(
          plain, ranges.unaryNextId(plain, options.lastConcurrency()), options.lastConcurrency());
      engineRows.clientRows(plain.port(), null, 0, 0);
    } finally {
      if (tempDir != null) {
        DirectoryRows.deleteTree(tempDir);
      }
    }
    return results.ranges(serverDescription, dbUrl);
  }

  /** Only the isolated-server rows, e.g. to measure another build's server beside this one's. */
  private String isolatedOnly(ResultsFile results, Path tempDir, String dbUrl) throws Exception {
    try {
      isolated(tempDir);
    } finally {
      if (tempDir != null) {
        DirectoryRows.deleteTree(tempDir);
      }
    }
    return results.isolated(dbUrl);
  }

  /** The rows against a server alone in its JVM, on a database file of their own or --db-url. */
  private void isolated(Path tempDir) throws Exception {
    IsolatedServers servers = isolatedServers(tempDir);
    new IsolatedH2Load(servers, table).run();
    new BareServerRows(servers, table).run();
    side.tokenRows(tempDir, isolatedServers(tempDir));
    new ServerStress(servers, table).run();
  }

  private IsolatedServers isolatedServers(Path tempDir) {
    return new IsolatedServers(
        options,
        tempDir == null
            ? options.targets().dbUrl()
            : "jdbc:h2:file:" + tempDir.resolve("isolated") + ";MODE=MySQL");
  }

  private long generatorTimeoutSeconds() {
    Duration perRound =
        options
            .load()
            .unary()
            .duration()
            .multipliedBy(2L * options.load().unary().concurrencies().size())
            .plus(
                options
                    .load()
                    .batch()
                    .duration()
                    .multipliedBy(options.load().batch().chunks().size()))
            .plus(options.load().latency().duration().multipliedBy(2));
    return options
            .rounds()
            .warmup()
            .multipliedBy(5)
            .plus(perRound.multipliedBy(options.rounds().count()))
            .multipliedBy(2)
            .toSeconds()
        + 120;
  }
}
