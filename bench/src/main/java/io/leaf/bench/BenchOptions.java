package io.leaf.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What one benchmark run measures and for how long: the full run ({@code make bench}, about ten
 * minutes on two cores) or {@code --quick} (seconds; checks that every part runs, numbers
 * meaningless).
 *
 * @param targets the servers under test: their database, build and extra flags
 * @param rounds how often each measurement is repeated, and the warm-up before the first
 * @param load the shape of each part's load: concurrency, durations, steps
 * @param rows which rows this run measures
 * @param out where the table is written
 */
public record BenchOptions(
    boolean quick, Targets targets, Rounds rounds, Load load, Rows rows, Path out) {

  /**
   * The servers under test.
   *
   * @param dbUrl their database; null for an embedded H2 in a temp dir
   * @param serverClassPath the class path of the isolated servers (another build's server plus this
   *     module's classes); null for this build's
   * @param serverFlags extra server flags of the isolated servers (e.g. {@code --metrics-port
   *     9464}, to measure what a setting costs)
   */
  public record Targets(
      String dbUrl,
      String dbUser,
      String dbPassword,
      String serverClassPath,
      List<String> serverFlags) {}

  /**
   * How often each measurement is repeated; the table shows medians.
   *
   * @param count the rounds of each measurement
   * @param warmup how long each call type is warmed up once before the first round
   * @param jmh the JMH settings; JMH measures {@code count} iterations
   */
  public record Rounds(int count, Duration warmup, Jmh jmh) {}

  /**
   * The JMH runs' settings.
   *
   * @param forks 0 runs JMH in this JVM (quick mode only)
   */
  public record Jmh(int forks, int warmupIterations, Duration warmupTime, Duration iterationTime) {}

  /**
   * The shape of each part's load.
   *
   * @param heapTags tags loaded for the heap-per-tag figure
   */
  public record Load(Unary unary, Batch batch, Latency latency, int heapTags) {}

  /**
   * P1: unary calls.
   *
   * @param concurrencies calls in flight for P1
   * @param duration how long each P1 measurement runs
   */
  public record Unary(List<Integer> concurrencies, Duration duration) {}

  /**
   * P2: NextIdBatch streams.
   *
   * @param count IDs asked for by each NextIdBatch call
   * @param duration P2 repeats its call, one at a time, until this much time has passed
   * @param chunks the {@code chunk_size} values of P2
   */
  public record Batch(int count, Duration duration, List<Integer> chunks) {}

  /**
   * P3: latency with slow segment loads.
   *
   * @param concurrency calls in flight for P3
   * @param duration how long each P3 measurement runs
   * @param smallStep the step of P3's slow tag; the delayed server's max step, so it never grows
   * @param largeStep the step of P3's reference tag and of every other tag
   * @param loadDelay added to every segment load of P3's server
   */
  public record Latency(
      int concurrency, Duration duration, int smallStep, int largeStep, Duration loadDelay) {}

  /**
   * Which rows this run measures.
   *
   * @param isolatedOnly run only the rows against a server alone in its JVM
   * @param rangesOnly run only the ID-range rows (ReserveIds, CachedIdGenerator vs AtomicLong)
   * @param only when not empty, run only these parts (of {@link #PARTS}); empty runs everything
   */
  public record Rows(boolean isolatedOnly, boolean rangesOnly, List<String> only) {}

  /** The parts {@code --only} can pick. */
  public static final List<String> PARTS =
      List.of(
          "latency",
          "cache",
          "bare",
          "formatted",
          "tokens",
          "regions",
          "ledger",
          "startup",
          "ordering");

  public static final Path DEFAULT_OUT = Path.of("target", "bench", "results.md");

  public static String usage() {
    return """
    Usage: leaf-bench [--quick] [--rounds N] [--out FILE]
                      [--db-url URL [--db-user U] [--db-password P]]

      --quick        tiny durations and counts: checks that everything runs (seconds)
      --rounds N     repeat each measurement N times, report medians (default 5, quick 2)
      --db-url URL   database of the servers under test (default: embedded H2 in a temp dir)
      --out FILE     where the table is written (default target/bench/results.md)
      --server-classpath CP   run the isolated-server rows against another build's server
                     (its jar and lib/*, then bench/target/classes)
      --isolated-only  only the rows against a server alone in its JVM (with the above: a
                     baseline of another build in a few minutes)
      --ranges-only  only the ID-range rows: ReserveIds vs unary NextId, and
                     CachedIdGenerator.next() vs AtomicLong (about a minute)
      --server-flags "FLAGS"  extra flags for the isolated servers, e.g.
                     "--metrics-port 9464" to measure what metrics cost
      --only PARTS   only these parts, comma-separated: latency (P3), cache (P7: the
                     client cache vs CosId and AtomicLong), bare (P8: unary calls vs a bare
                     grpc-java server, h2load), formatted (F1, F2: NextFormattedId vs
                     NextId, h2load; NextFormattedIdBatch vs unary), tokens (P9: NextId
                     with a scoped token file vs without tokens, h2load), regions (P10:
                     NextId with --region vs without), ledger (P11: segment loads/s with
                     the ledger on vs off, on --db-url or H2), startup (P12: launch
                     → SERVING, idle RSS and threads on an H2 file), ordering (O1–O3:
                     strict NextId at the owner and through another server, owner failover)
    """;
  }

  public static BenchOptions parse(String... args) {
    boolean quick = false;
    boolean isolatedOnly = false;
    boolean rangesOnly = false;
    Integer rounds = null;
    String dbUrl = null;
    String dbUser = "sa";
    String dbPassword = "";
    Path out = DEFAULT_OUT;
    String serverClassPath = null;
    List<String> serverFlags = List.of();
    List<String> only = List.of();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (arg.equals("--quick")) {
        quick = true;
        continue;
      }
      if (arg.equals("--isolated-only")) {
        isolatedOnly = true;
        continue;
      }
      if (arg.equals("--ranges-only")) {
        rangesOnly = true;
        continue;
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(
            "unknown flag or missing value: " + arg + "\n" + usage());
      }
      String value = args[++i];
      switch (arg) {
        case "--rounds" -> rounds = positive(arg, value);
        case "--db-url" -> dbUrl = value;
        case "--db-user" -> dbUser = value;
        case "--db-password" -> dbPassword = value;
        case "--out" -> out = Path.of(value);
        case "--server-classpath" -> serverClassPath = value;
        case "--only" -> only = parts(value);
        case "--server-flags" ->
            serverFlags = value.isBlank() ? List.of() : List.of(value.trim().split("\\s+"));
        default -> throw new IllegalArgumentException("unknown flag " + arg + "\n" + usage());
      }
    }
    Targets targets = new Targets(dbUrl, dbUser, dbPassword, serverClassPath, serverFlags);
    Rows rows = new Rows(isolatedOnly, rangesOnly, only);
    if (quick) {
      return new BenchOptions(
          true,
          targets,
          new Rounds(
              rounds == null ? 2 : rounds,
              Duration.ofMillis(200),
              new Jmh(0, 1, Duration.ofMillis(50), Duration.ofMillis(50))),
          new Load(
              new Unary(List.of(1, 8, 64), Duration.ofMillis(200)),
              new Batch(20_000, Duration.ofMillis(100), List.of(1_000, 10_000)),
              new Latency(8, Duration.ofMillis(300), 100, 1_000_000, Duration.ofMillis(5)),
              20_000),
          rows,
          out);
    }
    return new BenchOptions(
        false,
        targets,
        new Rounds(
            rounds == null ? 5 : rounds,
            Duration.ofSeconds(2),
            new Jmh(1, 2, Duration.ofSeconds(1), Duration.ofSeconds(1))),
        new Load(
            new Unary(List.of(1, 8, 64), Duration.ofSeconds(2)),
            new Batch(1_000_000, Duration.ofSeconds(1), List.of(1_000, 10_000)),
            new Latency(8, Duration.ofSeconds(3), 100, 1_000_000, Duration.ofMillis(5)),
            100_000),
        rows,
        out);
  }

  /** The flags that reproduce these options in a child JVM. */
  public List<String> toArgs() {
    List<String> args = new ArrayList<>();
    if (quick) {
      args.add("--quick");
    }
    args.add("--rounds");
    args.add(Integer.toString(rounds.count()));
    if (targets.serverClassPath() != null) {
      args.add("--server-classpath");
      args.add(targets.serverClassPath());
    }
    if (!targets.serverFlags().isEmpty()) {
      args.add("--server-flags");
      args.add(String.join(" ", targets.serverFlags()));
    }
    if (!rows.only().isEmpty()) {
      args.add("--only");
      args.add(String.join(",", rows.only()));
    }
    return args;
  }

  /** True when this run measures {@code part} (one of {@link #PARTS}). */
  public boolean runs(String part) {
    return rows.only().isEmpty() || rows.only().contains(part);
  }

  private static List<String> parts(String value) {
    List<String> parts = List.of(value.trim().split("\\s*,\\s*"));
    for (String part : parts) {
      if (!PARTS.contains(part)) {
        throw new IllegalArgumentException(
            "--only takes " + String.join(", ", PARTS) + "; got " + part);
      }
    }
    return parts;
  }

  private static int positive(String flag, String value) {
    try {
      int n = Integer.parseInt(value);
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below with the flag's name
    }
    throw new IllegalArgumentException(flag + " must be a positive integer, got " + value);
  }

  /** The last of P1's concurrencies: the one other rows compare with. */
  int lastConcurrency() {
    List<Integer> concurrencies = load.unary().concurrencies();
    return concurrencies.get(concurrencies.size() - 1);
  }
}
