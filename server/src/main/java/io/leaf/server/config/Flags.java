package io.leaf.server.config;

import io.leaf.server.engine.EngineConfig;
import io.leaf.server.region.Region;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The table of every flag the server reads, in the order of {@code --help}; the flags of one
 * concern are defined in {@link DatabaseFlags}, {@link SecurityFlags}, {@link HttpFlags}, {@link
 * SnowflakeFlags}. Each default is written once: in the flag, or taken from the record's defaults.
 */
public final class Flags {

  /** The levels {@code --log-level} takes; anything else stops the server. */
  public static final List<String> LOG_LEVELS =
      List.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "OFF");

  public static final String DEFAULT_DB_URL = "jdbc:h2:file:./data/leaf;MODE=MySQL";

  private static final EngineConfig ENGINE = EngineConfig.DEFAULTS;

  static final Flag<Integer> PORT =
      Flag.of("port", "50051", "TCP port of the gRPC server", Parsers.integer(0, 65535));
  static final Flag<Duration> IDLE_TTL =
      Flag.of(
          "idle-ttl",
          "15m",
          "evict a tag's cached segments after this long without a request",
          Parsers.duration());
  static final Flag<Duration> SWEEP_TICK =
      Flag.of("sweep-tick", "1s", "tick of the idle-tag timing wheel", Parsers.duration());
  static final Flag<Integer> MAX_BATCH =
      Flag.of(
          "max-batch",
          "10000000",
          "largest count NextIdBatch and ReserveIds accept",
          Parsers.integer(1, 100_000_000));
  static final Flag<Integer> MAX_STEP =
      Flag.of(
          "max-step",
          Integer.toString(ENGINE.maxStep()),
          "the dynamic step never doubles past this",
          Parsers.integer(1, 1_000_000_000));
  static final Flag<Duration> MAX_WAIT =
      Flag.of(
          "max-wait",
          "5s",
          "longest a call waits for a segment when its deadline is later or unset",
          Parsers.duration());
  static final Flag<Duration> SHUTDOWN_GRACE =
      Flag.of(
          "shutdown-grace",
          "20s",
          "time in-flight calls get to finish on SIGTERM",
          Parsers.duration());
  static final Flag<Integer> MAX_WAITING =
      Flag.of(
          "max-waiting",
          Integer.toString(ENGINE.maxWaiting()),
          "calls that may wait for a segment at once, server-wide",
          Parsers.integer(1, 10_000_000));
  static final Flag<Integer> MAX_STREAMS =
      Flag.of(
          "max-streams",
          "256",
          "NextIdBatch and NextSnowflakeIdBatch streams open at once",
          Parsers.integer(1, 1_000_000));
  static final Flag<Long> MAX_STREAM_MEMORY =
      Flag.of(
          "max-stream-memory",
          "auto",
          "bytes the chunks of all open batch streams may hold in flight together, like 64m or 1g:"
              + " 1m to 1024g, at most half of the smaller of the heap and the direct-memory limit;"
              + " auto: a quarter of that",
          Parsers.bytes());
  static final Flag<Integer> MAX_WATCHES =
      Flag.of(
          "max-watches",
          "1000",
          "Health/Watch streams open at once",
          Parsers.integer(1, 1_000_000));
  static final Flag<Integer> MAX_CALLS_PER_CONNECTION =
      Flag.of(
          "max-calls-per-connection",
          "1000",
          "concurrent calls per HTTP/2 connection",
          Parsers.integer(1, 1_000_000));
  static final Flag<Duration> MAX_CONNECTION_AGE =
      Flag.of(
          "max-connection-age",
          "5m",
          "a client connection is sent GOAWAY after about this long (±10%), so clients reconnect"
              + " and spread over servers added since; off: connections live until clients close"
              + " them",
          Parsers.durationOrOff());
  static final Flag<Duration> MAX_CONNECTION_AGE_GRACE =
      Flag.of(
          "max-connection-age-grace",
          "30s",
          "time the calls in progress on such a connection get to finish before it is" + " closed",
          Parsers.duration());
  static final Flag<Duration> MISSING_TAG_TTL =
      Flag.of(
          "missing-tag-ttl",
          Parsers.format(ENGINE.missingTagTtl()),
          "a tag the database does not have is answered NOT_FOUND from memory this long",
          Parsers.duration());
  static final Flag<String> LOG_LEVEL =
      Flag.of(
          "log-level",
          "INFO",
          "log level: "
              + String.join(", ", LOG_LEVELS)
              + " (the start line and secrets are not affected)",
          Parsers.oneOf(LOG_LEVELS));
  static final Flag<Region> REGION =
      Flag.of(
          "region",
          "",
          "r/n: issue only region r's share"
              + " of the ID space split n ways, the same n in every region; without"
              + " --worker-id-range, also only region r's share of worker IDs (docs/regions.md)",
          (flag, raw) -> Region.parse(raw));
  static final Flag<Path> FORMAT_KEY_FILE =
      Flag.of(
          "format-key-file",
          "",
          "file of 32, 48 or 64 hex digits: the AES key of opaque formatted numbers (FF1)",
          Parsers.path());

  static final Flag<String> ADVERTISE_ADDRESS =
      Flag.of(
          "advertise-address",
          "",
          "HOST:PORT other servers forward a STRICT tag's calls to when this server owns it"
              + " (empty: the host name and --port)",
          Parsers.text());
  static final Flag<Duration> TAG_LEASE_TTL =
      Flag.of(
          "tag-lease-ttl",
          "10s",
          "about the longest a STRICT tag goes unserved when its owner dies: its owner lease"
              + " lives half of it without renewal (renewed every sixth of it) and a new owner"
              + " waits out the other half",
          Parsers.duration());

  static final Flag<Integer> SEQUENCE_MAX_KEYS =
      Flag.of(
          "sequence-max-keys",
          Integer.toString(OrderingConfig.DEFAULT_SEQUENCE_MAX_KEYS),
          "NextSequence keys kept in memory at once, over every tag (about 32 bytes each); a key"
              + " not kept jumps to its section's floor on its next call",
          Parsers.integer(1, 100_000_000));

  static final Flag<Integer> MAX_HELD_STRICT_CALLS =
      Flag.of(
          "max-held-strict-calls",
          Integer.toString(OrderingConfig.DEFAULT_MAX_HELD_STRICT_CALLS),
          "calls on STRICT tags held (no thread each) while their new owner waits out the last"
              + " lease or an acquisition is decided, instead of UNAVAILABLE, and as many forwarded"
              + " NextId calls waiting for a batch to their owner; one more is RESOURCE_EXHAUSTED;"
              + " 0: none held, each forwarded call goes alone",
          Parsers.integer(0, 1_000_000));

  /** Every flag under its heading, in the order of {@code --help} and docs/configuration.md. */
  public static final Map<String, List<Flag<?>>> GROUPS =
      groups(
          "Essentials",
              List.of(PORT, DatabaseFlags.DB_URL, DatabaseFlags.DB_USER, DatabaseFlags.DB_PASSWORD),
          "Frequently used",
              List.of(
                  HttpFlags.METRICS_PORT,
                  HttpFlags.HTTP_PORT,
                  SecurityFlags.ADMIN_TOKEN,
                  SecurityFlags.ADMIN_TOKEN_FILE,
                  SecurityFlags.CLIENT_TOKEN,
                  SecurityFlags.CLIENT_TOKEN_FILE,
                  SecurityFlags.TOKENS_FILE,
                  SecurityFlags.MONITOR_PUBLIC,
                  SecurityFlags.TLS_CERT,
                  SecurityFlags.TLS_KEY,
                  SecurityFlags.TLS_CLIENT_CA,
                  SecurityFlags.TLS_PEER_CA,
                  LOG_LEVEL,
                  DatabaseFlags.DB_POOL_SIZE,
                  MAX_WAIT,
                  MAX_STEP,
                  IDLE_TTL,
                  SHUTDOWN_GRACE,
                  MAX_CONNECTION_AGE,
                  MAX_CONNECTION_AGE_GRACE,
                  SnowflakeFlags.WORKER_ID_RANGE,
                  REGION,
                  DatabaseFlags.LEDGER,
                  DatabaseFlags.LEDGER_RETENTION,
                  ADVERTISE_ADDRESS),
          "Infrequently used",
              List.of(
                  MAX_BATCH,
                  MAX_WAITING,
                  MAX_STREAMS,
                  MAX_STREAM_MEMORY,
                  MAX_WATCHES,
                  MAX_CALLS_PER_CONNECTION,
                  MISSING_TAG_TTL,
                  DatabaseFlags.FIRST_LOAD_THREADS,
                  DatabaseFlags.MAX_QUEUED_FIRST_LOADS,
                  DatabaseFlags.MAX_QUEUED_LOADS,
                  DatabaseFlags.DB_CALL_THREADS,
                  DatabaseFlags.MAX_QUEUED_DB_CALLS,
                  SWEEP_TICK,
                  SecurityFlags.TLS_REFRESH,
                  SecurityFlags.TOKENS_REFRESH,
                  HttpFlags.HTTP_MAX_CONNECTIONS,
                  HttpFlags.HTTP_READ_TIMEOUT,
                  HttpFlags.HTTP_IDLE_TIMEOUT,
                  SnowflakeFlags.WORKER_LEASE_TTL,
                  SnowflakeFlags.SNOWFLAKE_EPOCH,
                  SnowflakeFlags.SNOWFLAKE_BITS,
                  SnowflakeFlags.MAX_CLIENT_LEASES,
                  FORMAT_KEY_FILE,
                  TAG_LEASE_TTL,
                  SEQUENCE_MAX_KEYS,
                  MAX_HELD_STRICT_CALLS));

  /** Every flag, in the order of {@code --help}. */
  public static final List<Flag<?>> ALL = GROUPS.values().stream().flatMap(List::stream).toList();

  /** Flags refused when given empty: an empty token would silently mean none. */
  static final List<Flag<?>> NOT_EMPTY =
      List.of(SecurityFlags.ADMIN_TOKEN, SecurityFlags.CLIENT_TOKEN);

  private Flags() {}

  /** The text of {@code --help}. */
  public static String help() {
    StringBuilder out = new StringBuilder("Usage: java -jar leaf-server.jar [--flag value]...\n\n");
    GROUPS.forEach(
        (heading, flags) -> {
          out.append(heading).append(":\n");
          for (Flag<?> f : flags) {
            out.append(
                String.format(
                    java.util.Locale.ROOT,
                    "  --%-25s %-31s %s (default %s)%n",
                    f.name(),
                    "$" + f.env(),
                    f.help(),
                    f.defaultValue().isEmpty() ? "empty" : f.defaultValue()));
          }
          out.append('\n');
        });
    return out.toString();
  }

  private static Map<String, List<Flag<?>>> groups(Object... headingsAndFlags) {
    Map<String, List<Flag<?>>> groups = new LinkedHashMap<>();
    for (int i = 0; i < headingsAndFlags.length; i += 2) {
      @SuppressWarnings("unchecked")
      List<Flag<?>> flags = (List<Flag<?>>) headingsAndFlags[i + 1];
      groups.put((String) headingsAndFlags[i], flags);
    }
    return java.util.Collections.unmodifiableMap(groups);
  }
}
