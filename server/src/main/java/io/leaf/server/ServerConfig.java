package io.leaf.server;

import io.leaf.server.engine.EngineConfig;
import io.leaf.server.http.HttpConfig;
import io.leaf.server.ops.OpsConfig;
import io.leaf.server.snowflake.SnowflakeConfig;
import io.leaf.server.snowflake.SnowflakeLayout;
import io.leaf.server.store.DataSources;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server's settings, read once from flags ({@code --name value} or {@code --name=value}),
 * each falling back to its environment variable ({@code LEAF_NAME}) and then to its default.
 * Every value is checked here; an invalid one stops the server with a one-line reason.
 */
public record ServerConfig(
    int port,
    String dbUrl,
    String dbUser,
    String dbPassword,
    int dbPoolSize,
    Duration idleTtl,
    Duration sweepTick,
    int maxBatch,
    int maxStep,
    Duration maxWait,
    Duration shutdownGrace,
    int maxWaiting,
    int maxStreams,
    long maxStreamMemory,
    int maxWatches,
    int maxCallsPerConnection,
    Duration missingTagTtl,
    int firstLoadThreads,
    int maxQueuedFirstLoads,
    int dbCallThreads,
    int maxQueuedDbCalls,
    int maxQueuedLoads,
    OpsConfig ops,
    String logLevel,
    HttpConfig http,
    SnowflakeConfig snowflake) {

  /** The levels {@code --log-level} takes; anything else stops the server. */
  static final List<String> LOG_LEVELS =
      List.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "OFF");

  /** Flags refused when given empty: an empty token would silently mean none. */
  private static final List<String> NOT_EMPTY = List.of("admin-token", "client-token");

  public static final String DEFAULT_DB_URL = "jdbc:h2:file:./data/leaf;MODE=MySQL";

  /** Flag name → (env var, default, description); the order is the order of {@code --help}. */
  private static final Map<String, String[]> FLAGS = new LinkedHashMap<>();

  static {
    flag("port", "50051", "TCP port of the gRPC server");
    flag("db-url", DEFAULT_DB_URL, "JDBC URL: jdbc:mysql://host:3306/db or jdbc:h2:file:path");
    flag("db-user", "sa", "database user (H2 default: sa)");
    flag("db-password", "", "database password");
    flag("db-pool-size", "8", "segment loader threads of tags this server serves, each with its"
        + " own pooled connection (the pool adds one per first-load and db-call thread, one for"
        + " health checks and one for the worker lease)");
    flag("max-queued-loads", "10000",
        "segment loads of served tags that may wait for a loader thread");
    flag("idle-ttl", "15m", "evict a tag's cached segments after this long without a request");
    flag("sweep-tick", "1s", "tick of the idle-tag timing wheel");
    flag("max-batch", "10000000", "largest count NextIdBatch and ReserveIds accept");
    flag("max-step", "1000000", "the dynamic step never doubles past this");
    flag("max-wait", "5s", "longest a call waits for a segment when its deadline is later or unset");
    flag("shutdown-grace", "20s", "time in-flight calls get to finish on SIGTERM");
    flag("max-waiting", "10000", "calls that may wait for a segment at once, server-wide");
    flag("max-streams", "256", "NextIdBatch and NextSnowflakeIdBatch streams open at once");
    flag("max-stream-memory", "auto", "bytes the chunks of all open batch streams may hold"
        + " in flight together, like 64m or 1g: 1m to 1024g, at most half of the smaller of the"
        + " heap and the direct-memory limit; auto: a quarter of that");
    flag("max-watches", "1000", "Health/Watch streams open at once");
    flag("max-calls-per-connection", "1000", "concurrent calls per HTTP/2 connection");
    flag("missing-tag-ttl", "2s",
        "a tag the database does not have is answered NOT_FOUND from memory this long");
    flag("first-load-threads", "2",
        "threads loading the first segment of tags this server holds nothing of");
    flag("max-queued-first-loads", "100", "such first loads that may wait for a thread");
    flag("db-call-threads", "4",
        "threads running CreateTag, UpdateStep, GetTag, ListTags, InitCache's read and"
            + " ReserveIds' dedicated write");
    flag("max-queued-db-calls", "1000", "such calls that may wait for a thread");
    flag("metrics-port", "0", "HTTP port of GET /metrics (Prometheus text); 0: no metrics");
    flag("http-port", "0", "HTTP port of GET /api/segment/get/{tag}, /api/snowflake/get/{key}"
        + " (Meituan Leaf's), the monitor page GET / and GET /metrics; 0: off");
    flag("http-max-connections", "1000", "connections each HTTP port (--http-port,"
        + " --metrics-port) holds open; one more is answered 429 and closed");
    flag("http-read-timeout", "10s", "time a request's line, headers and body have to arrive"
        + " from its first byte (then 408); at least 100ms");
    flag("http-idle-timeout", "60s",
        "an HTTP connection without a request in progress is closed after this");
    flag("tls-cert", "", "PEM certificate chain: serve gRPC over TLS only (with --tls-key)");
    flag("tls-key", "", "PEM private key of --tls-cert");
    flag("tls-client-ca", "", "PEM CA certificates: require client certificates (mutual TLS)");
    flag("tls-refresh", "1m", "how often the TLS files are read again (rotation)");
    flag("admin-token", "", "bearer token CreateTag and UpdateStep require");
    flag("admin-token-file", "", "file holding --admin-token (e.g. a mounted Secret)");
    flag("client-token", "", "bearer token every other LeafService RPC requires (needs"
        + " --admin-token, which is accepted too)");
    flag("client-token-file", "", "file holding --client-token");
    flag("monitor-public", "false", "true: the monitor page GET / and /api/monitor.json, which"
        + " list every tag name held, need no token even with --client-token");
    flag("log-level", "INFO", "log level: " + String.join(", ", LOG_LEVELS)
        + " (the start line and secrets are not affected)");
    flag("worker-id-range", SnowflakeConfig.DEFAULT_RANGE,
        "snowflake worker IDs this server may lease, from-to (e.g. 0-511 and 512-1023 in two sites)");
    flag("worker-lease-ttl", SnowflakeConfig.DEFAULT_TTL,
        "a worker lease lives this long without renewal (renewed every third of it)");
    flag("snowflake-epoch", Long.toString(SnowflakeLayout.MEITUAN_EPOCH_MS),
        "timestamp 0 of snowflake IDs: epoch millis or ISO-8601 (default: Meituan Leaf's)");
    flag("snowflake-bits", SnowflakeConfig.DEFAULT_BITS,
        "snowflake timestamp/worker/sequence bits, adding up to 63");
  }

  private static void flag(String name, String defaultValue, String help) {
    FLAGS.put(name, new String[] {envName(name), defaultValue, help});
  }

  /** Reads flags, then the environment, then defaults. */
  public static ServerConfig parse(String[] args, Function<String, String> env) {
    Map<String, String> given = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--")) {
        // Not echoed: a stray word is often a secret whose flag went missing.
        throw new IllegalArgumentException("unexpected argument at position " + (i + 1)
            + ", not a --flag (see --help)");
      }
      String name = arg.substring(2);
      String value;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      } else {
        if (i + 1 >= args.length || args[i + 1].startsWith("--")) {
          // "--admin-token $EMPTY --client-token=x" must not make the next flag a token.
          throw new IllegalArgumentException("--" + name + " needs a value"
              + (NOT_EMPTY.contains(name) ? "" : " (use --" + name + "= for an empty one)"));
        }
        value = args[++i];
      }
      if (!FLAGS.containsKey(name)) {
        throw new IllegalArgumentException("unknown flag --" + name + " (see --help)");
      }
      given.put(name, value);
    }
    Function<String, String> get = name -> {
      if (given.containsKey(name)) {
        return given.get(name);
      }
      String fromEnv = env.apply(FLAGS.get(name)[0]);
      return fromEnv != null && !fromEnv.isEmpty() ? fromEnv : FLAGS.get(name)[1];
    };
    for (String name : NOT_EMPTY) {
      if ("".equals(given.get(name))) {
        // As an empty token file is: an empty token given on purpose is a mistake, not "none".
        throw new IllegalArgumentException("--" + name + " is empty; leave it out to require"
            + " no token");
      }
    }
    int port = intIn(get, "port", 0, 65535);
    String dbUrl = get.apply("db-url");
    DataSources.urlProblem(dbUrl).ifPresent(problem -> {
      throw new IllegalArgumentException("--db-url " + problem);
    });
    int pool = intIn(get, "db-pool-size", 1, 1000);
    Duration idleTtl = duration(get, "idle-ttl");
    Duration tick = duration(get, "sweep-tick");
    if (tick.compareTo(idleTtl) > 0) {
      throw new IllegalArgumentException("--sweep-tick (" + tick + ") must not exceed --idle-ttl ("
          + idleTtl + ")");
    }
    int maxBatch = intIn(get, "max-batch", 1, 100_000_000);
    int maxStep = intIn(get, "max-step", 1, 1_000_000_000);
    Duration maxWait = duration(get, "max-wait");
    Duration grace = duration(get, "shutdown-grace");
    return new ServerConfig(port, dbUrl, get.apply("db-user"), get.apply("db-password"), pool,
        idleTtl, tick, maxBatch, maxStep, maxWait, grace,
        intIn(get, "max-waiting", 1, 10_000_000),
        intIn(get, "max-streams", 1, 1_000_000),
        bytes(get, "max-stream-memory"),
        intIn(get, "max-watches", 1, 1_000_000),
        intIn(get, "max-calls-per-connection", 1, 1_000_000),
        duration(get, "missing-tag-ttl"),
        intIn(get, "first-load-threads", 1, 1000),
        intIn(get, "max-queued-first-loads", 1, 1_000_000),
        intIn(get, "db-call-threads", 1, 1000),
        intIn(get, "max-queued-db-calls", 1, 1_000_000),
        intIn(get, "max-queued-loads", 1, 1_000_000),
        ops(get, port),
        logLevel(get),
        http(get, port),
        SnowflakeConfig.parse(get.apply("worker-id-range"), duration(get, "worker-lease-ttl"),
            get.apply("snowflake-epoch"), get.apply("snowflake-bits")));
  }

  /** A misspelt level is refused: the logging library would read it as DEBUG. */
  private static String logLevel(Function<String, String> get) {
    String raw = get.apply("log-level");
    String level = raw.trim().toUpperCase(Locale.ROOT);
    if (!LOG_LEVELS.contains(level)) {
      throw new IllegalArgumentException("--log-level must be one of "
          + String.join(", ", LOG_LEVELS) + ", got " + raw);
    }
    return level;
  }

  private static HttpConfig http(Function<String, String> get, int grpcPort) {
    int httpPort = intIn(get, "http-port", 0, 65535);
    int metricsPort = intIn(get, "metrics-port", 0, 65535);
    if (httpPort != 0 && (httpPort == grpcPort || httpPort == metricsPort)) {
      throw new IllegalArgumentException("--http-port must differ from --port and --metrics-port,"
          + " got " + httpPort);
    }
    Duration readTimeout = duration(get, "http-read-timeout");
    if (readTimeout.compareTo(HttpConfig.MIN_READ_TIMEOUT) < 0) {
      throw new IllegalArgumentException("--http-read-timeout must be at least "
          + HttpConfig.MIN_READ_TIMEOUT.toMillis() + "ms, got " + get.apply("http-read-timeout"));
    }
    return new HttpConfig(httpPort, intIn(get, "http-max-connections", 1, 1_000_000),
        readTimeout, duration(get, "http-idle-timeout"));
  }

  private static OpsConfig ops(Function<String, String> get, int grpcPort) {
    int metricsPort = intIn(get, "metrics-port", 0, 65535);
    if (metricsPort != 0 && metricsPort == grpcPort) {
      throw new IllegalArgumentException("--metrics-port must differ from --port, both "
          + metricsPort);
    }
    return new OpsConfig(metricsPort, path(get, "tls-cert"),
        path(get, "tls-key"), path(get, "tls-client-ca"), duration(get, "tls-refresh"),
        token(get, "admin-token"), token(get, "client-token"), bool(get, "monitor-public"));
  }

  /** {@code true} or {@code false}; anything else stops the server. */
  private static boolean bool(Function<String, String> get, String name) {
    String raw = get.apply(name);
    return switch (raw.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException("--" + name + " must be true or false, got "
          + raw);
    };
  }

  private static Path path(Function<String, String> get, String name) {
    String raw = get.apply(name).trim();
    return raw.isEmpty() ? null : Path.of(raw);
  }

  /** The token given directly or in its file (one trailing newline dropped); null when neither. */
  private static String token(Function<String, String> get, String name) {
    String direct = get.apply(name);
    String file = get.apply(name + "-file").trim();
    if (!direct.isEmpty() && !file.isEmpty()) {
      throw new IllegalArgumentException("--" + name + " and --" + name + "-file exclude each"
          + " other");
    }
    String token = direct;
    if (!file.isEmpty()) {
      try {
        token = Files.readString(Path.of(file), StandardCharsets.UTF_8).strip();
      } catch (IOException | RuntimeException e) {
        throw new IllegalArgumentException("--" + name + "-file " + file + " cannot be read: "
            + e.getClass().getSimpleName());
      }
      if (token.isEmpty()) {
        throw new IllegalArgumentException("--" + name + "-file " + file + " is empty");
      }
    }
    if (token.isEmpty()) {
      return null;
    }
    // What an HTTP/2 header value carries unchanged; the message never repeats the secret.
    if (!token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
      throw new IllegalArgumentException("--" + name
          + " must be printable ASCII without spaces");
    }
    return token;
  }

  /**
   * Connections the pool opens at most: one for each thread that uses the database (served
   * loaders, first loads, database calls), one for health checks and one for the worker lease, so
   * no kind of work ever waits for a connection another kind holds.
   */
  public int connections() {
    return dbPoolSize + firstLoadThreads + dbCallThreads + 2;
  }

  /** {@code base} with the engine settings these flags set. */
  public EngineConfig engine(EngineConfig base) {
    return base.withMaxStep(maxStep).withLoaderThreads(dbPoolSize).withLoaderQueue(maxQueuedLoads)
        .withMaxWaiting(maxWaiting)
        .withFirstLoads(firstLoadThreads, maxQueuedFirstLoads).withMissingTagTtl(missingTagTtl);
  }

  public static String help() {
    StringBuilder out = new StringBuilder("Usage: leaf-server [--flag value]...\n\n");
    FLAGS.forEach((name, v) -> out.append(String.format(Locale.ROOT,
        "  --%-25s %-31s %s (default %s)%n",
        name, "$" + v[0], v[2], v[1].isEmpty() ? "empty" : v[1])));
    return out.toString();
  }

  /** The password and the tokens never appear in logs. */
  @Override
  public String toString() {
    return "port=" + port + " db-url=" + DataSources.redact(dbUrl) + " db-user=" + dbUser
        + " db-pool-size="
        + dbPoolSize + " idle-ttl=" + idleTtl + " sweep-tick=" + sweepTick + " max-batch="
        + maxBatch + " max-step=" + maxStep + " max-wait=" + maxWait + " shutdown-grace="
        + shutdownGrace + " max-waiting=" + maxWaiting
        + " max-streams=" + maxStreams + " max-stream-memory="
        + (maxStreamMemory == 0 ? "auto" : maxStreamMemory) + " max-watches=" + maxWatches
        + " max-calls-per-connection=" + maxCallsPerConnection
        + " missing-tag-ttl=" + missingTagTtl + " first-load-threads=" + firstLoadThreads
        + " max-queued-first-loads=" + maxQueuedFirstLoads + " db-call-threads=" + dbCallThreads
        + " max-queued-db-calls=" + maxQueuedDbCalls + " max-queued-loads=" + maxQueuedLoads
        + " " + ops + " log-level=" + logLevel + " " + http + " " + snowflake;
  }

  private static String envName(String flag) {
    return "LEAF_" + flag.toUpperCase(Locale.ROOT).replace('-', '_');
  }

  /** Plain digits: no sign, which {@link Integer#parseInt} would take. */
  private static final Pattern DIGITS = Pattern.compile("\\d{1,10}");

  private static int intIn(Function<String, String> get, String name, int min, int max) {
    String raw = get.apply(name);
    try {
      if (!DIGITS.matcher(raw.trim()).matches()) {
        throw new NumberFormatException();
      }
      int v = Integer.parseInt(raw.trim());
      if (v < min || v > max) {
        throw new NumberFormatException();
      }
      return v;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + " must be an integer between " + min
          + " and " + max + ", got " + raw);
    }
  }

  private static final Pattern BYTES = Pattern.compile("(\\d{1,13})([kmg]?)");
  /** The least a byte size flag takes: a thousand IDs' chunks in flight need 20 KB. */
  static final long MIN_BYTES = 1L << 20;
  /** The most: far beyond any heap, small enough that no product overflows. */
  static final long MAX_BYTES = 1L << 40;

  /** {@code auto} (0), or a size in bytes from 1m to 1024g: {@code 67108864}, {@code 65536k}, {@code 64m}, {@code 2g}. */
  static long bytes(Function<String, String> get, String name) {
    String raw = get.apply(name);
    String v = raw.trim().toLowerCase(Locale.ROOT);
    if (v.equals("auto")) {
      return 0;
    }
    Matcher m = BYTES.matcher(v);
    if (m.matches()) {
      int shift = switch (m.group(2)) {
        case "k" -> 10;
        case "m" -> 20;
        case "g" -> 30;
        default -> 0;
      };
      long n = Long.parseLong(m.group(1)); // at most 13 digits, so n << 30 cannot overflow
      if (n <= MAX_BYTES >> shift && n << shift >= MIN_BYTES) {
        return n << shift;
      }
    }
    throw new IllegalArgumentException("--" + name + " must be auto or a size from 1m to 1024g,"
        + " like 64m or 1g, got " + raw);
  }

  private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h)");

  /** Long enough for any timeout or TTL, short enough that every duration fits in nanoseconds. */
  static final Duration MAX_DURATION = Duration.ofDays(365);

  /** {@code 500ms}, {@code 30s}, {@code 15m}, {@code 1h}; positive and at most a year. */
  static Duration duration(Function<String, String> get, String name) {
    String raw = get.apply(name);
    Matcher m = DURATION.matcher(raw.trim());
    if (m.matches()) {
      Duration d;
      try {
        long n = Long.parseLong(m.group(1));
        d = switch (m.group(2)) {
          case "ms" -> Duration.ofMillis(n);
          case "s" -> Duration.ofSeconds(n);
          case "m" -> Duration.ofMinutes(n);
          default -> Duration.ofHours(n);
        };
      } catch (NumberFormatException | ArithmeticException e) {
        d = null;
      }
      if (d == null || d.compareTo(MAX_DURATION) > 0) {
        throw new IllegalArgumentException("--" + name + " must be at most "
            + MAX_DURATION.toHours() + "h, got " + raw);
      }
      if (!d.isZero()) {
        return d;
      }
    }
    throw new IllegalArgumentException("--" + name
        + " must be a positive duration like 500ms, 30s, 15m or 1h, got " + raw);
  }
}
