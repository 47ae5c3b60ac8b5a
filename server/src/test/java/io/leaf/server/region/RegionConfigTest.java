package io.leaf.server.region;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.leaf.server.config.ServerConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code --region} among the other flags: its default, its variable, its worker IDs. */
class RegionConfigTest {

  private static ServerConfig parse(Map<String, String> env, String... args) {
    return ServerConfig.parse(args, env::get);
  }

  @Test
  void default_isNone_allWorkerIds() {
    ServerConfig c = parse(Map.of());
    assertEquals(Region.NONE, c.idSpace().region());
    assertEquals(1023, c.idSpace().snowflake().toId());
  }

  @Test
  void region_fromFlagOrVariable_leasesItsShareOfWorkerIds() {
    ServerConfig c = parse(Map.of(), "--region", "3/4");
    assertEquals(Region.of(3, 4), c.idSpace().region());
    assertEquals(768, c.idSpace().snowflake().fromId());
    assertEquals(1023, c.idSpace().snowflake().toId());
    assertEquals(Region.of(1, 2), parse(Map.of("LEAF_REGION", "1/2")).idSpace().region());
  }

  @Test
  void workerIdRangeOutsideTheShare_refusedAtStart_fromFlagOrVariable() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> parse(Map.of(), "--region", "0/2", "--worker-id-range", "500-600"));
    assertEquals(
        "--worker-id-range 500-600 must lie within region 0/2's worker IDs 0-511", e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> parse(Map.of("LEAF_WORKER_ID_RANGE", "0-1023"), "--region", "1/2"));
    assertEquals(
        520,
        parse(Map.of(), "--region", "1/2", "--worker-id-range", "520-530")
            .idSpace()
            .snowflake()
            .fromId());
  }

  @Test
  void malformedRegion_refusedNamingFlag() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> parse(Map.of(), "--region", "2/2"));
    assertEquals(
        "--region must be r/n with 2 <= n <= 1024 and 0 <= r < n, got 2/2", e.getMessage());
  }
}
