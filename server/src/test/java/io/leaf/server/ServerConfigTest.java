package io.leaf.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.config.LedgerConfig;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.engine.EngineConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServerConfigTest {

  private static ServerConfig parse(Map<String, String> env, String... args) {
    return ServerConfig.parse(args, env::get);
  }

  @Test
  void parse_nothingGiven_defaults() {
    ServerConfig c = parse(Map.of());
    assertEquals(50051, c.api().port());
    assertEquals(io.leaf.server.config.Flags.DEFAULT_DB_URL, c.database().url());
    assertEquals(Duration.ofMinutes(15), c.segments().sweep().idleTtl());
    assertEquals(10_000_000, c.api().calls().maxBatch());
  }

  @Test
  void parse_flagBeatsEnvBeatsDefault() {
    ServerConfig c = parse(Map.of("LEAF_PORT", "6000", "LEAF_IDLE_TTL", "30s"), "--port=7000");
    assertEquals(7000, c.api().port());
    assertEquals(Duration.ofSeconds(30), c.segments().sweep().idleTtl());
  }

  @Test
  void parse_invalidValues_oneLineReasonNamingFlagAndValue() {
    assertMessage("--port must be an integer between 0 and 65535, got 70000", "--port", "70000");
    assertMessage(
        "--idle-ttl must be a positive duration like 500ms, 30s, 15m or 1h, got 0s",
        "--idle-ttl",
        "0s");
    assertMessage(
        "--db-url must start with jdbc:mysql: (MySQL or MariaDB), jdbc:postgresql: or"
            + " jdbc:h2:, got postgres://x",
        "--db-url",
        "postgres://x");
    assertMessage("--max-wait must be at most 8760h, got 9999999h", "--max-wait", "9999999h");
    assertMessage(
        "--idle-ttl must be at most 8760h, got 99999999999999999999s",
        "--idle-ttl",
        "99999999999999999999s");
    assertMessage(
        "--shutdown-grace must be at most 8760h, got 9999999999999h",
        "--shutdown-grace",
        "9999999999999h");
    assertMessage("unknown flag --nope (see --help)", "--nope", "1");
    assertMessage("--max-batch needs a value (use --max-batch= for an empty one)", "--max-batch");
    assertMessage("--admin-token needs a value", "--admin-token", "--client-token=abc");
    assertMessage(
        "unexpected argument at position 3, not a --flag (see --help)",
        "--port",
        "1",
        "s3cret-token");
    assertMessage(
        "--metrics-port must differ from --port, both 9000",
        "--port",
        "9000",
        "--metrics-port",
        "9000");
    assertMessage(
        "--db-pool-size must be an integer between 1 and 1000, got 0", "--db-pool-size", "0");
  }

  @Test
  void parse_emptyToken_refusedAsAnEmptyTokenFileIs() {
    assertMessage("--admin-token is empty; leave it out to require no token", "--admin-token=");
    assertMessage("--admin-token is empty; leave it out to require no token", "--admin-token", "");
    assertMessage(
        "--client-token is empty; leave it out to require no token",
        "--admin-token",
        "a",
        "--client-token=");
    IllegalArgumentException fromEnv =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                ServerConfig.parse(
                    new String[0], env -> env.equals("LEAF_ADMIN_TOKEN") ? "" : null));
    assertEquals(
        "LEAF_ADMIN_TOKEN is set but empty; unset it to require no token",
        fromEnv.getMessage(),
        "an empty variable does not turn the token off");
    assertEquals(null, parse(Map.of()).ops().tokens().adminToken(), "left out: no token");
  }

  @Test
  void parse_httpReadTimeoutBelowMinimum_refused() {
    assertMessage(
        "--http-read-timeout must be at least 100ms, got 1ms", "--http-read-timeout", "1ms");
    assertMessage(
        "--http-read-timeout must be at least 100ms, got 99ms", "--http-read-timeout", "99ms");
    assertEquals(
        Duration.ofMillis(100),
        parse(Map.of(), "--http-read-timeout", "100ms").http().readTimeout());
  }

  @Test
  void parse_signedInteger_refused() {
    assertMessage("--port must be an integer between 0 and 65535, got +7000", "--port", "+7000");
    assertMessage(
        "--max-batch must be an integer between 1 and 100000000, got +5", "--max-batch", "+5");
  }

  @Test
  void toString_passwordInDbUrl_neverShownAndEveryDurationNamed() {
    ServerConfig c =
        ServerConfig.parse(
            new String[] {
              "--db-url",
              "jdbc:mysql://db:3306/leaf?password=s3cret",
              "--db-password",
              "other-secret"
            },
            e -> null);
    String shown = c.toString();
    assertFalse(shown.contains("s3cret") || shown.contains("other-secret"), shown);
    assertTrue(shown.contains("shutdown-grace=PT20S"), shown);
  }

  @Test
  void parse_h2MemWithoutName_rejectedWithReason() {
    assertMessage(
        "--db-url jdbc:h2:mem: needs a database name (without one every pooled connection"
            + " opens its own empty database), e.g. jdbc:h2:mem:leaf; got jdbc:h2:mem:;MODE=MySQL",
        "--db-url",
        "jdbc:h2:mem:;MODE=MySQL");
  }

  @Test
  void parse_h2OtherMode_rejectedWithReason() {
    assertMessage(
        "--db-url sets MODE=PostgreSQL, but Leaf's SQL needs H2's MySQL mode (leave MODE"
            + " out or set MODE=MySQL); got jdbc:h2:file:./x;MODE=PostgreSQL",
        "--db-url",
        "jdbc:h2:file:./x;MODE=PostgreSQL");
  }

  @Test
  void parse_h2FileWithoutMode_accepted() {
    assertEquals(
        "jdbc:h2:file:/var/lib/leaf/leaf",
        parse(Map.of(), "--db-url", "jdbc:h2:file:/var/lib/leaf/leaf").database().url());
  }

  @Test
  void parse_limits_defaultsAndFlagsReachTheEngine() {
    ServerConfig d = parse(Map.of());
    assertEquals(10_000, d.segments().engine().maxWaiting());
    assertEquals(256, d.api().streams().maxStreams());
    assertEquals(1_000, d.api().connections().maxCalls());
    assertEquals(Duration.ofSeconds(2), d.segments().engine().missingTagTtl());
    assertEquals(2, d.segments().engine().firstLoads().threads());
    assertEquals(100, d.segments().engine().firstLoads().queue());
    assertEquals(4, d.api().dbCalls().threads());
    assertEquals(1_000, d.api().dbCalls().maxQueued());

    ServerConfig c =
        parse(
            Map.of("LEAF_MAX_WAITING", "7"),
            "--missing-tag-ttl",
            "500ms",
            "--first-load-threads",
            "3",
            "--max-queued-first-loads",
            "9",
            "--db-pool-size",
            "5");
    EngineConfig e = c.engine(EngineConfig.DEFAULTS);
    assertEquals(7, e.maxWaiting(), "from the environment");
    assertEquals(Duration.ofMillis(500), e.missingTagTtl());
    assertEquals(3, e.firstLoads().threads());
    assertEquals(9, e.firstLoads().queue());
    assertEquals(5, e.loaders().threads(), "--db-pool-size sizes the loader of served tags");
  }

  @Test
  void parse_loaderQueueAndConnections_reachTheEngineAndThePool() {
    ServerConfig d = parse(Map.of());
    assertEquals(10_000, d.engine(EngineConfig.DEFAULTS).loaders().queue());
    assertEquals(
        8 + 2 + 4 + 2 + 1 + 2,
        d.connections(),
        "a connection per database thread, one for health, one for the worker lease, one for"
            + " the ledger's retention, two for the tag leases");
    ServerConfig c =
        parse(
            Map.of(),
            "--max-queued-loads",
            "50",
            "--db-pool-size",
            "3",
            "--first-load-threads",
            "1",
            "--db-call-threads",
            "2");
    assertEquals(50, c.engine(EngineConfig.DEFAULTS).loaders().queue());
    assertEquals(3 + 1 + 2 + 2 + 1 + 2, c.connections());
    assertEquals(
        3 + 1 + 2 + 2 + 2,
        parse(
                Map.of(),
                "--db-pool-size",
                "3",
                "--first-load-threads",
                "1",
                "--db-call-threads",
                "2",
                "--ledger",
                "off")
            .connections(),
        "no retention thread");
  }

  @Test
  void ledger_defaultsOnThirtyDays_offAndRetentionRead() {
    ServerConfig d = parse(Map.of());
    assertEquals(new LedgerConfig(true, java.time.Duration.ofDays(30)), d.segments().ledger());
    ServerConfig off = parse(Map.of(), "--ledger", "off", "--ledger-retention", "7d");
    assertEquals(new LedgerConfig(false, java.time.Duration.ofDays(7)), off.segments().ledger());
    assertMessage("--ledger must be on or off, got maybe", "--ledger", "maybe");
  }

  @Test
  void parse_limitOutOfRange_namesFlagAndValue() {
    assertMessage(
        "--max-waiting must be an integer between 1 and 10000000, got 0", "--max-waiting", "0");
    assertMessage(
        "--max-streams must be an integer between 1 and 1000000, got -1", "--max-streams", "-1");
    assertMessage(
        "--missing-tag-ttl must be a positive duration like 500ms, 30s, 15m or 1h, got 0s",
        "--missing-tag-ttl",
        "0s");
  }

  @Test
  void parse_maxStreamMemory_autoOrASizeOfAtLeastOneMebibyte() {
    assertEquals(0, parse(Map.of()).api().streams().maxMemory(), "auto by default");
    assertEquals(
        64L << 20, parse(Map.of(), "--max-stream-memory", "64m").api().streams().maxMemory());
    assertEquals(
        2L << 30, parse(Map.of("LEAF_MAX_STREAM_MEMORY", "2G")).api().streams().maxMemory());
    assertEquals(
        1L << 20, parse(Map.of(), "--max-stream-memory", "1048576").api().streams().maxMemory());
    assertEquals(
        64L << 20,
        parse(Map.of(), "--max-stream-memory", "67108864").api().streams().maxMemory(),
        "a plain byte count of any length");
    assertEquals(
        1L << 40, parse(Map.of(), "--max-stream-memory", "1024g").api().streams().maxMemory());
    assertMessage(
        "--max-stream-memory must be auto or a size from 1m to 1024g, like 64m or 1g,"
            + " got 1025g",
        "--max-stream-memory",
        "1025g");
    assertMessage(
        "--max-stream-memory must be auto or a size from 1m to 1024g, like 64m or 1g,"
            + " got 99999999999999999999",
        "--max-stream-memory",
        "99999999999999999999");
    assertTrue(
        parse(Map.of(), "--max-stream-memory", "8m")
            .toString()
            .contains("max-stream-memory=8388608"));
    assertMessage(
        "--max-stream-memory must be auto or a size from 1m to 1024g, like 64m or 1g,"
            + " got 512k",
        "--max-stream-memory",
        "512k");
    assertMessage(
        "--max-stream-memory must be auto or a size from 1m to 1024g, like 64m or 1g,"
            + " got 64 MB",
        "--max-stream-memory",
        "64 MB");
  }

  @Test
  void toString_neverShowsPassword() {
    ServerConfig c = parse(Map.of(), "--db-password", "hunter2");
    assertTrue(!c.toString().contains("hunter2"), c.toString());
  }

  @Test
  void monitorPublic_falseByDefault_trueOrFalseOnly() {
    assertFalse(parse(Map.of()).ops().monitorPublic(), "the monitor follows the tokens by default");
    assertTrue(parse(Map.of(), "--monitor-public", "true").ops().monitorPublic());
    assertTrue(parse(Map.of("LEAF_MONITOR_PUBLIC", "TRUE")).ops().monitorPublic(), "from the env");
    assertMessage("--monitor-public must be true or false, got yes", "--monitor-public", "yes");
  }

  private static void assertMessage(String expected, String... args) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> parse(Map.of(), args));
    assertEquals(expected, e.getMessage());
  }
}
