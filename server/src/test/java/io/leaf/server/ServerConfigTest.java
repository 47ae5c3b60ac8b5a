package io.leaf.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    assertEquals(50051, c.port());
    assertEquals(ServerConfig.DEFAULT_DB_URL, c.dbUrl());
    assertEquals(Duration.ofMinutes(15), c.idleTtl());
    assertEquals(10_000_000, c.maxBatch());
  }

  @Test
  void parse_flagBeatsEnvBeatsDefault() {
    ServerConfig c = parse(Map.of("LEAF_PORT", "6000", "LEAF_IDLE_TTL", "30s"), "--port=7000");
    assertEquals(7000, c.port());
    assertEquals(Duration.ofSeconds(30), c.idleTtl());
  }

  @Test
  void parse_invalidValues_oneLineReasonNamingFlagAndValue() {
    assertMessage("--port must be an integer between 0 and 65535, got 70000", "--port", "70000");
    assertMessage("--idle-ttl must be a positive duration like 500ms, 30s, 15m or 1h, got 0s",
        "--idle-ttl", "0s");
    assertMessage("--db-url must start with jdbc:mysql: (MySQL or MariaDB) or jdbc:h2:, got postgres://x",
        "--db-url", "postgres://x");
    assertMessage("--max-wait must be at most 8760h, got 9999999h", "--max-wait", "9999999h");
    assertMessage("--idle-ttl must be at most 8760h, got 99999999999999999999s",
        "--idle-ttl", "99999999999999999999s");
    assertMessage("--shutdown-grace must be at most 8760h, got 9999999999999h",
        "--shutdown-grace", "9999999999999h");
    assertMessage("unknown flag --nope (see --help)", "--nope", "1");
    assertMessage("--max-batch needs a value", "--max-batch");
    assertMessage("--db-pool-size must be an integer between 1 and 1000, got 0", "--db-pool-size", "0");
  }

  @Test
  void toString_neverShowsPassword() {
    ServerConfig c = parse(Map.of(), "--db-password", "hunter2");
    assertTrue(!c.toString().contains("hunter2"), c.toString());
  }

  private static void assertMessage(String expected, String... args) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parse(Map.of(), args));
    assertEquals(expected, e.getMessage());
  }
}
