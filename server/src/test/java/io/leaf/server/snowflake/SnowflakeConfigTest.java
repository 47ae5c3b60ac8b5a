package io.leaf.server.snowflake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.config.ServerConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SnowflakeConfigTest {

  private static ServerConfig parse(Map<String, String> env, String... flags) {
    return ServerConfig.parse(flags, env::get);
  }

  @Test
  void parse_defaults_meituanLayoutWholeRange30sTtl() {
    SnowflakeConfig c = parse(Map.of()).idSpace().snowflake();
    assertEquals(SnowflakeLayout.DEFAULT, c.layout(), "default layout");
    assertEquals(0, c.fromId(), "from");
    assertEquals(1023, c.toId(), "to");
    assertEquals(Duration.ofSeconds(30), c.leaseTtl(), "ttl");
  }

  @Test
  void parse_flagsAndEnvironment_applied() {
    SnowflakeConfig c =
        parse(
                Map.of("LEAF_WORKER_ID_RANGE", "512-1023"),
                "--worker-lease-ttl",
                "10s",
                "--snowflake-epoch",
                "2020-01-01T00:00:00Z",
                "--snowflake-bits",
                "42/9/12",
                "--worker-id-range=100-200")
            .idSpace()
            .snowflake();
    assertEquals(100, c.fromId(), "the flag wins over the environment");
    assertEquals(200, c.toId(), "to");
    assertEquals(Duration.ofSeconds(10), c.leaseTtl(), "ttl");
    assertEquals(1577836800000L, c.layout().epochMs(), "ISO epoch");
    assertEquals(9, c.layout().workerIdBits(), "bits");
    assertEquals(
        512,
        parse(Map.of("LEAF_WORKER_ID_RANGE", "512-1023")).idSpace().snowflake().fromId(),
        "environment");
  }

  @Test
  void parse_invalidValues_oneLineNamingTheFlag() {
    String[][] bad = {
      {"--worker-id-range", "5"},
      {"--worker-id-range", "9-3"},
      {"--worker-id-range", "0-1024"},
      {"--worker-id-range", "+1-+2"},
      {"--worker-id-range", "+1-2"},
      {"--worker-id-range", "1-+2"},
      {"--snowflake-bits", "+41/10/12"},
      {"--worker-lease-ttl", "500ms"},
      {"--snowflake-epoch", "yesterday"},
      {"--snowflake-epoch", "4102444800000"},
      {"--snowflake-bits", "41/10/13"},
      {"--snowflake-bits", "41-10-12"},
      {"--snowflake-bits", "40/11/12", "--worker-id-range", "0-4095"},
    };
    for (String[] flags : bad) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> parse(Map.of(), flags),
              String.join(" ", flags));
      boolean namesOne = false;
      for (String flag : flags) {
        namesOne |= flag.startsWith("--") && e.getMessage().contains(flag);
      }
      assertTrue(namesOne, "names a flag it was given: " + e.getMessage());
      assertTrue(!e.getMessage().contains("\n"), "one line: " + e.getMessage());
    }
  }

  @Test
  void help_listsSnowflakeFlags() {
    String help = ServerConfig.help();
    for (String flag :
        new String[] {
          "--worker-id-range", "--worker-lease-ttl", "--snowflake-epoch", "--snowflake-bits"
        }) {
      assertTrue(help.contains(flag), flag + " in --help");
    }
  }
}
