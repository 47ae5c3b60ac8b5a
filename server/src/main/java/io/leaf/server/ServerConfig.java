package io.leaf.server;

import io.leaf.server.store.DataSources;
import java.time.Duration;
import java.util.LinkedHashMap;
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
    Duration shutdownGrace) {

  public static final String DEFAULT_DB_URL = "jdbc:h2:file:./data/leaf;MODE=MySQL";

  /** Flag name → (env var, default, description); the order is the order of {@code --help}. */
  private static final Map<String, String[]> FLAGS = new LinkedHashMap<>();

  static {
    flag("port", "50051", "TCP port of the gRPC server");
    flag("db-url", DEFAULT_DB_URL, "JDBC URL: jdbc:mysql://host:3306/db or jdbc:h2:file:path");
    flag("db-user", "sa", "database user (H2 default: sa)");
    flag("db-password", "", "database password");
    flag("db-pool-size", "8", "HikariCP pool size, also the number of segment loader threads");
    flag("idle-ttl", "15m", "evict a tag's cached segments after this long without a request");
    flag("sweep-tick", "1s", "tick of the idle-tag timing wheel");
    flag("max-batch", "10000000", "largest count NextIdBatch accepts");
    flag("max-step", "1000000", "the dynamic step never doubles past this");
    flag("max-wait", "5s", "longest a call waits for a segment when its deadline is later or unset");
    flag("shutdown-grace", "20s", "time in-flight calls get to finish on SIGTERM");
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
        throw new IllegalArgumentException("unexpected argument: " + arg + " (see --help)");
      }
      String name = arg.substring(2);
      String value;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      } else {
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException("--" + name + " needs a value");
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
    int port = intIn(get, "port", 0, 65535);
    String dbUrl = get.apply("db-url");
    try {
      DataSources.dialectOf(dbUrl);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "--db-url must start with " + DataSources.SUPPORTED_URLS + ", got " + dbUrl);
    }
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
        idleTtl, tick, maxBatch, maxStep, maxWait, grace);
  }

  public static String help() {
    StringBuilder out = new StringBuilder("Usage: leaf-server [--flag value]...\n\n");
    FLAGS.forEach((name, v) -> out.append(String.format(Locale.ROOT, "  --%-15s %-18s %s (default %s)%n",
        name, "$" + v[0], v[2], v[1].isEmpty() ? "empty" : v[1])));
    return out.toString();
  }

  /** The password never appears in logs. */
  @Override
  public String toString() {
    return "port=" + port + " db-url=" + dbUrl + " db-user=" + dbUser + " db-pool-size="
        + dbPoolSize + " idle-ttl=" + idleTtl + " sweep-tick=" + sweepTick + " max-batch="
        + maxBatch + " max-step=" + maxStep + " max-wait=" + maxWait;
  }

  private static String envName(String flag) {
    return "LEAF_" + flag.toUpperCase(Locale.ROOT).replace('-', '_');
  }

  private static int intIn(Function<String, String> get, String name, int min, int max) {
    String raw = get.apply(name);
    try {
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
