package io.leaf.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The snowflake rows: unary NextSnowflakeId ÷ Health/Check on the same server, channel and
 * concurrency (goal ≥ 0.9, like NextId's), and NextSnowflakeIdBatch IDs/s ÷ the layout's limit for
 * one worker.
 *
 * <p>The limit is 4,096,000 IDs/s with 12 sequence bits (goal ≥ 0.9). The client is {@link
 * SnowflakeLoad} in a JVM of its own.
 */
final class SnowflakeRows {

  /** IDs one worker may issue per second with the default 12 sequence bits. */
  static final double LAYOUT_LIMIT = 4_096_000;

  private final BenchOptions options;
  private final ResultsTable table;

  SnowflakeRows(BenchOptions options, ResultsTable table) {
    this.options = options;
    this.table = table;
  }

  void run(int port) throws Exception {
    List<String> args = new ArrayList<>(List.of(Integer.toString(port)));
    args.addAll(options.toArgs());
    long timeout =
        options
                .rounds()
                .warmup()
                .multipliedBy(3L * WarmUp.MAX_RUNS)
                .plus(
                    options
                        .load()
                        .unary()
                        .duration()
                        .multipliedBy(2)
                        .plus(options.load().batch().duration())
                        .multipliedBy(options.rounds().count()))
                .multipliedBy(2)
                .toSeconds()
            + 120;
    Progress.say("snowflake rows: client JVM, %d rounds", options.rounds().count());
    List<Map<String, String>> rounds =
        LoadResults.select(
            ChildJvm.run(List.of(), SnowflakeLoad.class, args, timeout), "sf", r -> true);
    int inFlight = (int) Double.parseDouble(rounds.get(0).get("inFlight"));
    // A round in which either call type completed nothing (a stalled machine) has no ratio.
    List<Double> ratios =
        rounds.stream()
            .filter(
                r ->
                    Double.parseDouble(r.get("next")) > 0 && Double.parseDouble(r.get("check")) > 0)
            .map(r -> Double.parseDouble(r.get("next")) / Double.parseDouble(r.get("check")))
            .toList();
    String ratio =
        ratios.isEmpty()
            ? "no round completed both call types"
            : String.format(Locale.ROOT, "NextSnowflakeId ÷ Check = %.2f", Stats.median(ratios))
                + (ratios.size() < rounds.size()
                    ? " ("
                        + (rounds.size() - ratios.size())
                        + " of "
                        + rounds.size()
                        + " rounds completed no call of one type)"
                    : "");
    table.add(
        "S1 unary NextSnowflakeId vs Health/Check, " + inFlight + " in flight",
        "async stubs on one channel (Netty, 127.0.0.1, plaintext), "
            + inFlight
            + " in flight, "
            + options.load().unary().duration().toMillis()
            + " ms per call type per round, order"
            + " alternating; the server's worker lease on its database (goal ≥ 0.9)",
        String.format(
            Locale.ROOT,
            "NextSnowflakeId %,.0f/s · Check %,.0f/s",
            Stats.median(LoadResults.values(rounds, "next")),
            Stats.median(LoadResults.values(rounds, "check"))),
        ratio);
    List<Double> uuidRatios =
        rounds.stream()
            .filter(r -> Double.parseDouble(r.get("next")) > 0)
            .map(r -> Double.parseDouble(r.get("uuid")) / Double.parseDouble(r.get("next")))
            .toList();
    table.add(
        "U1 unary NextUuid vs NextSnowflakeId, " + inFlight + " in flight",
        "the same channel and rounds as S1, the two calls measured one after the other (order"
            + " alternating); a UUID is a snowflake ID plus 16 SecureRandom bytes (goal ≥ 0.9)",
        String.format(
            Locale.ROOT,
            "NextUuid %,.0f/s · NextSnowflakeId %,.0f/s",
            Stats.median(LoadResults.values(rounds, "uuid")),
            Stats.median(LoadResults.values(rounds, "next"))),
        uuidRatios.isEmpty()
            ? "no round completed NextSnowflakeId"
            : String.format(
                Locale.ROOT, "NextUuid ÷ NextSnowflakeId = %.2f", Stats.median(uuidRatios)));
    double ids = Stats.median(LoadResults.values(rounds, "idsPerSecond"));
    table.add(
        "S2 NextSnowflakeIdBatch stream vs the layout's limit for one worker",
        "count "
            + String.format(Locale.ROOT, "%,d", SnowflakeLoad.BATCH_COUNT)
            + ", chunk_size "
            + String.format(Locale.ROOT, "%,d", SnowflakeLoad.CHUNK)
            + ", calls one after another"
            + " for "
            + options.load().batch().duration().toMillis()
            + " ms per round; limit 4,096 IDs per"
            + " ms (12 sequence bits) (goal ≥ 0.9)",
        String.format(Locale.ROOT, "%,.0f IDs/s", ids),
        String.format(Locale.ROOT, "stream ÷ 4,096,000/s = %.2f", ids / LAYOUT_LIMIT));
    new LocalSnowflakeRow(options, table).run(port);
  }

  /**
   * Only these rows, against one server on an embedded H2 database (or {@code --db-url}): {@code
   * java -cp bench/target/leaf-bench.jar io.leaf.bench.SnowflakeRows [bench flags]}.
   */
  public static void main(String[] args) throws Exception {
    BenchOptions options = BenchOptions.parse(args);
    ((ch.qos.logback.classic.Logger)
            org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME))
        .setLevel(ch.qos.logback.classic.Level.WARN);
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("leaf-bench-sf");
    String dbUrl =
        options.targets().dbUrl() != null
            ? options.targets().dbUrl()
            : "jdbc:h2:file:" + dir.resolve("leaf") + ";MODE=MySQL";
    ResultsTable table = new ResultsTable();
    try (BenchServer server =
        BenchServer.start(
            dbUrl,
            options.targets().dbUser(),
            options.targets().dbPassword(),
            Duration.ZERO,
            options.load().latency().largeStep())) {
      new SnowflakeRows(options, table).run(server.port());
    }
    System.out.println(table.markdown());
    System.exit(0);
  }
}
