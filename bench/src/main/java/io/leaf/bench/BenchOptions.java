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
 * @param dbUrl the database of the servers under test; null for an embedded H2 in a temp dir
 * @param rounds how many times each measurement is repeated; the table shows medians
 * @param concurrencies calls in flight for P1
 * @param unaryDuration how long each P1 measurement runs
 * @param warmup how long each call type is warmed up once before the first round
 * @param batchCount IDs asked for by each NextIdBatch call (P2)
 * @param batchDuration P2 repeats its call, one at a time, until this much time has passed
 * @param chunks the {@code chunk_size} values of P2
 * @param latencyConcurrency calls in flight for P3
 * @param latencyDuration how long each P3 measurement runs
 * @param smallStep the step of P3's slow tag; the delayed server's max step, so it never grows
 * @param largeStep the step of P3's reference tag and of every other tag
 * @param loadDelay added to every segment load of P3's server
 * @param heapTags tags loaded for the heap-per-tag figure
 * @param jmhForks 0 runs JMH in this JVM (quick mode only); JMH measures {@code rounds} iterations
 * @param serverClassPath the class path of the isolated servers (another build's server plus this
 *     module's classes); null for this build's
 * @param isolatedOnly run only the rows against a server alone in its JVM
 * @param rangesOnly run only the ID-range rows (ReserveIds, CachedIdGenerator vs AtomicLong)
 * @param serverFlags extra server flags of the isolated servers (e.g. {@code --metrics-port 9464},
 *     to measure what a setting costs)
 * @param only when not empty, run only these parts (of {@link #PARTS}); empty runs everything
 */
// The bench's flags, one component each, read in one place: grouping them is still to do.
@SuppressWarnings("checkstyle:RecordComponentNumber")
public record BenchOptions(
    boolean quick,
    String dbUrl,
    String dbUser,
    String dbPassword,
    Path out,
    int rounds,
    List<Integer> concurrencies,
    Duration unaryDuration,
    Duration warmup,
    int batchCount,
    Duration batchDuration,
    List<Integer> chunks,
    int latencyConcurrency,
    Duration latencyDuration,
    int smallStep,
    int largeStep,
    Duration loadDelay,
    int heapTags,
    int jmhForks,
    int jmhWarmupIterations,
    Duration jmhWarmupTime,
    Duration jmhIterationTime,
    String serverClassPath,
    boolean isolatedOnly,
    boolean rangesOnly,
    List<String> serverFlags,
    List<String> only) {

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
    if (quick) {
      return new BenchOptions(
          true,
          dbUrl,
          dbUser,
          dbPassword,
          out,
          rounds == null ? 2 : rounds,
          List.of(1, 8, 64),
          Duration.ofMillis(200),
          Duration.ofMillis(200),
          20_000,
          Duration.ofMillis(100),
          List.of(1_000, 10_000),
          8,
          Duration.ofMillis(300),
          100,
          1_000_000,
          Duration.ofMillis(5),
          20_000,
          0,
          1,
          Duration.ofMillis(50),
          Duration.ofMillis(50),
          serverClassPath,
          isolatedOnly,
          rangesOnly,
          serverFlags,
          only);
    }
    return new BenchOptions(
        false,
        dbUrl,
        dbUser,
        dbPassword,
        out,
        rounds == null ? 5 : rounds,
        List.of(1, 8, 64),
        Duration.ofSeconds(2),
        Duration.ofSeconds(2),
        1_000_000,
        Duration.ofSeconds(1),
        List.of(1_000, 10_000),
        8,
        Duration.ofSeconds(3),
        100,
        1_000_000,
        Duration.ofMillis(5),
        100_000,
        1,
        2,
        Duration.ofSeconds(1),
        Duration.ofSeconds(1),
        serverClassPath,
        isolatedOnly,
        rangesOnly,
        serverFlags,
        only);
  }

  /** The flags that reproduce these options in a child JVM. */
  public List<String> toArgs() {
    List<String> args = new ArrayList<>();
    if (quick) {
      args.add("--quick");
    }
    args.add("--rounds");
    args.add(Integer.toString(rounds));
    if (serverClassPath != null) {
      args.add("--server-classpath");
      args.add(serverClassPath);
    }
    if (!serverFlags.isEmpty()) {
      args.add("--server-flags");
      args.add(String.join(" ", serverFlags));
    }
    if (!only.isEmpty()) {
      args.add("--only");
      args.add(String.join(",", only));
    }
    return args;
  }

  /** True when this run measures {@code part} (one of {@link #PARTS}). */
  public boolean runs(String part) {
    return only.isEmpty() || only.contains(part);
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
    return concurrencies.get(concurrencies.size() - 1);
  }
}
