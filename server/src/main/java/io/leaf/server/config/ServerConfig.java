package io.leaf.server.config;

import io.leaf.server.engine.EngineConfig;
import io.leaf.server.formats.FormatKey;
import io.leaf.server.region.Region;
import io.leaf.server.snowflake.SnowflakeConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

/**
 * The server's settings, one record per concern, read once from the flags of {@link Flags} and
 * checked here: an invalid value stops the server with a one-line reason.
 *
 * <p>Each flag is given as {@code --name value} or {@code --name=value}, and falls back to its
 * environment variable ({@code LEAF_NAME}) and then to its default.
 *
 * @param api the gRPC port, limits and database-call pool
 * @param database where the database is
 * @param segments the engine's flags, the idle sweep and the ledger
 * @param http the HTTP port and its bounds
 * @param ops the metrics port, log level, TLS and tokens
 * @param idSpace the snowflake layout, the format key, the region and the tags' ordering
 */
public record ServerConfig(
    ApiConfig api,
    DatabaseConfig database,
    SegmentConfig segments,
    HttpConfig http,
    OpsConfig ops,
    IdSpaceConfig idSpace) {

  /** Reads flags, then the environment, then defaults. */
  public static ServerConfig parse(String[] args, Function<String, String> env) {
    FlagValues v = FlagValues.read(args, env);
    ApiConfig api = ApiConfig.from(v);
    DatabaseConfig database = DatabaseConfig.from(v);
    EngineConfig engine =
        EngineConfig.DEFAULTS
            .withMaxStep(v.get(Flags.MAX_STEP))
            .withLoaderThreads(v.get(DatabaseFlags.DB_POOL_SIZE))
            .withLoaderQueue(v.get(DatabaseFlags.MAX_QUEUED_LOADS))
            .withMaxWaiting(v.get(Flags.MAX_WAITING))
            .withFirstLoads(
                v.get(DatabaseFlags.FIRST_LOAD_THREADS),
                v.get(DatabaseFlags.MAX_QUEUED_FIRST_LOADS))
            .withMissingTagTtl(v.get(Flags.MISSING_TAG_TTL));
    SweepConfig sweep = SweepConfig.from(v);
    OpsConfig ops = ops(v, api.port());
    HttpConfig http = http(v, api.port());
    Region region = v.get(Flags.REGION);
    SnowflakeConfig snowflake =
        region
            .snowflake(
                SnowflakeConfig.parse(
                    v.get(SnowflakeFlags.WORKER_ID_RANGE),
                    v.get(SnowflakeFlags.WORKER_LEASE_TTL),
                    v.get(SnowflakeFlags.SNOWFLAKE_EPOCH),
                    v.get(SnowflakeFlags.SNOWFLAKE_BITS)),
                v.isSet(SnowflakeFlags.WORKER_ID_RANGE))
            .withMaxClientLeases(v.get(SnowflakeFlags.MAX_CLIENT_LEASES));
    Optional<FormatKey> formatKey = formatKey(v.get(Flags.FORMAT_KEY_FILE));
    LedgerConfig ledger = LedgerConfig.from(v);
    OrderingConfig ordering =
        OrderingConfig.from(
            v.get(Flags.ADVERTISE_ADDRESS),
            api.port(),
            v.get(Flags.TAG_LEASE_TTL),
            v.get(Flags.SEQUENCE_MAX_KEYS),
            v.get(Flags.MAX_HELD_STRICT_CALLS));
    return new ServerConfig(
        api,
        database,
        new SegmentConfig(engine, sweep, ledger),
        http,
        ops,
        new IdSpaceConfig(snowflake, formatKey, region, ordering));
  }

  /** The key in {@code file}; the message never shows a byte of it. */
  private static Optional<FormatKey> formatKey(Path file) {
    if (file == null) {
      return Optional.empty();
    }
    byte[] content;
    try {
      content = Files.readAllBytes(file);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(
          "--format-key-file " + file + " cannot be read: " + e.getClass().getSimpleName());
    }
    try {
      return Optional.of(FormatKey.fromFileContent(content));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--format-key-file " + file + ": " + e.getMessage());
    }
  }

  /** The text of {@code --help}. */
  public static String help() {
    return Flags.help();
  }

  private static HttpConfig http(FlagValues v, int grpcPort) {
    int httpPort = v.get(HttpFlags.HTTP_PORT);
    int metricsPort = v.get(HttpFlags.METRICS_PORT);
    if (httpPort != 0 && (httpPort == grpcPort || httpPort == metricsPort)) {
      throw new IllegalArgumentException(
          "--http-port must differ from --port and --metrics-port," + " got " + httpPort);
    }
    Duration readTimeout = v.get(HttpFlags.HTTP_READ_TIMEOUT);
    if (readTimeout.compareTo(HttpConfig.MIN_READ_TIMEOUT) < 0) {
      throw new IllegalArgumentException(
          "--http-read-timeout must be at least "
              + HttpConfig.MIN_READ_TIMEOUT.toMillis()
              + "ms, got "
              + v.raw(HttpFlags.HTTP_READ_TIMEOUT));
    }
    return new HttpConfig(
        httpPort,
        v.get(HttpFlags.HTTP_MAX_CONNECTIONS),
        readTimeout,
        v.get(HttpFlags.HTTP_IDLE_TIMEOUT));
  }

  private static OpsConfig ops(FlagValues v, int grpcPort) {
    int metricsPort = v.get(HttpFlags.METRICS_PORT);
    if (metricsPort != 0 && metricsPort == grpcPort) {
      throw new IllegalArgumentException(
          "--metrics-port must differ from --port, both " + metricsPort);
    }
    // Every flag is read first (an unreadable token file fails here), then TLS is checked and then
    // the tokens: with several mistakes, the first in this order is named.
    Path tlsCert = v.get(SecurityFlags.TLS_CERT);
    Path tlsKey = v.get(SecurityFlags.TLS_KEY);
    Path tlsClientCa = v.get(SecurityFlags.TLS_CLIENT_CA);
    Path tlsPeerCa = v.get(SecurityFlags.TLS_PEER_CA);
    Duration tlsRefresh = v.get(SecurityFlags.TLS_REFRESH);
    String adminToken = token(v, SecurityFlags.ADMIN_TOKEN, SecurityFlags.ADMIN_TOKEN_FILE);
    String clientToken = token(v, SecurityFlags.CLIENT_TOKEN, SecurityFlags.CLIENT_TOKEN_FILE);
    Path tokensFile = v.get(SecurityFlags.TOKENS_FILE);
    Duration tokensRefresh = v.get(SecurityFlags.TOKENS_REFRESH);
    boolean monitorPublic = v.get(SecurityFlags.MONITOR_PUBLIC);
    TlsConfig tls = new TlsConfig(tlsCert, tlsKey, tlsClientCa, tlsPeerCa, tlsRefresh);
    TokenConfig tokens = new TokenConfig(adminToken, clientToken, tokensFile, tokensRefresh);
    String logLevel = v.get(Flags.LOG_LEVEL);
    return new OpsConfig(metricsPort, logLevel, tls, tokens, monitorPublic);
  }

  /** The token given directly or in its file (surrounding whitespace dropped); null: neither. */
  private static String token(FlagValues v, Flag<String> flag, Flag<String> fileFlag) {
    String name = flag.name();
    String direct = v.get(flag);
    String file = v.get(fileFlag).trim();
    if (!direct.isEmpty() && !file.isEmpty()) {
      throw new IllegalArgumentException(
          "--" + name + " and --" + name + "-file exclude each" + " other");
    }
    String token = direct;
    if (!file.isEmpty()) {
      try {
        token = Files.readString(Path.of(file), StandardCharsets.UTF_8).strip();
      } catch (IOException | RuntimeException e) {
        throw new IllegalArgumentException(
            "--" + name + "-file " + file + " cannot be read: " + e.getClass().getSimpleName());
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
      throw new IllegalArgumentException("--" + name + " must be printable ASCII without spaces");
    }
    return token;
  }

  /**
   * Connections the pool opens at most: one for each thread that uses the database (served loaders,
   * first loads, database calls), one for health checks, one for the worker lease and one for the
   * ledger's retention and two for the tag leases, so no kind of work ever waits for a connection
   * another kind holds.
   */
  public int connections() {
    EngineConfig engine = segments.engine();
    return engine.loaders().threads()
        + engine.firstLoads().threads()
        + api.dbCalls().threads()
        + 2
        + (segments.ledger().on() ? 1 : 0)
        + 2;
  }

  /** {@code base} (its back-off, say) with the engine settings these flags set. */
  public EngineConfig engine(EngineConfig base) {
    EngineConfig engine = segments.engine();
    return base.withMaxStep(engine.maxStep())
        .withLoaderThreads(engine.loaders().threads())
        .withLoaderQueue(engine.loaders().queue())
        .withMaxWaiting(engine.maxWaiting())
        .withFirstLoads(engine.firstLoads().threads(), engine.firstLoads().queue())
        .withMissingTagTtl(engine.missingTagTtl());
  }

  /**
   * The start line: every flag in a fixed order that does not follow the records (tests and docs
   * read it). The password and the tokens never appear in logs.
   */
  @Override
  public String toString() {
    EngineConfig engine = segments.engine();
    SweepConfig sweep = segments.sweep();
    return "port="
        + api.port()
        + " "
        + database
        + " db-pool-size="
        + engine.loaders().threads()
        + " idle-ttl="
        + sweep.idleTtl()
        + " sweep-tick="
        + sweep.tick()
        + " max-batch="
        + api.calls().maxBatch()
        + " max-step="
        + engine.maxStep()
        + " max-wait="
        + api.calls().maxWait()
        + " shutdown-grace="
        + api.shutdownGrace()
        + " max-waiting="
        + engine.maxWaiting()
        + " max-streams="
        + api.streams().maxStreams()
        + " max-stream-memory="
        + (api.streams().maxMemory() == 0 ? "auto" : api.streams().maxMemory())
        + " max-watches="
        + api.streams().maxWatches()
        + " max-calls-per-connection="
        + api.connections().maxCalls()
        + " max-connection-age="
        + (api.connections().maxAge().isZero() ? "off" : api.connections().maxAge())
        + " max-connection-age-grace="
        + api.connections().maxAgeGrace()
        + " missing-tag-ttl="
        + engine.missingTagTtl()
        + " first-load-threads="
        + engine.firstLoads().threads()
        + " max-queued-first-loads="
        + engine.firstLoads().queue()
        + " db-call-threads="
        + api.dbCalls().threads()
        + " max-queued-db-calls="
        + api.dbCalls().maxQueued()
        + " max-queued-loads="
        + engine.loaders().queue()
        + " "
        + ops
        + " "
        + http
        + " "
        + idSpace.snowflake()
        + " format-key="
        + idSpace.formatKey().map(k -> "fingerprint " + k.fingerprint()).orElse("unset")
        + " region="
        + idSpace.region()
        + " "
        + segments.ledger()
        + " "
        + idSpace.ordering();
  }
}
