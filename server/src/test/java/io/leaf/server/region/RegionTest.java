package io.leaf.server.region;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.snowflake.SnowflakeConfig;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The region rule's arithmetic: shares, CreateTag's max_id, formatted sequences, worker IDs. */
class RegionTest {

  @Test
  void parse_emptyIsNone_rnIsRegion_restRefusedNamingFlag() {
    assertTrue(Region.parse("").isNone());
    assertEquals(Region.of(1, 3), Region.parse(" 1/3 "));
    for (String bad : new String[] {"1", "3/3", "0/1", "-1/2", "0/1025", "a/b", "1/2/3"}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> Region.parse(bad), bad);
      assertTrue(e.getMessage().startsWith("--region must be r/n"), e.getMessage());
    }
  }

  @Test
  void shares_areHighBitsOfNextPowerOfTwo_disjointAndCoverTheSpace() {
    Region r = Region.of(2, 3); // n' = 4
    assertEquals(4, r.shares());
    assertEquals(1L << 62, r.base());
    assertEquals((1L << 61) - 1, r.maxLocalMaxId());
    long end = -1;
    for (int i = 0; i < 4; i++) {
      Region ri = Region.of(i, 4);
      assertEquals(
          end + 1 == 0 ? 0 : end + 1,
          ri.base(),
          "share " + i + " starts where " + (i - 1) + " ends");
      end = ri.base() + ri.maxLocalMaxId(); // the share's last integer, never an ID
    }
    assertEquals(Long.MAX_VALUE, end, "the top share ends at 2^63-1");
    assertEquals(0, Region.of(0, 2).base(), "region 0's IDs are its database's values");
    assertEquals(Long.MAX_VALUE, Region.NONE.maxLocalMaxId());
  }

  @Test
  void toLocal_belowShareSizeCountsFromBase_withinShareAsIs_otherShareRefused() {
    Region r = Region.of(1, 2);
    long base = 1L << 62;
    assertEquals(1, r.toLocal(1));
    assertEquals(1000, r.toLocal(base + 1000));
    assertEquals(1000, r.toLocal(1000));
    assertEquals(Long.MAX_VALUE - base, r.toLocal(Long.MAX_VALUE));
    Region three = Region.of(2, 4);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> three.toLocal((1L << 61) + 5));
    assertTrue(e.getMessage().startsWith("max_id must lie in region 2/4's share"), e.getMessage());
    assertEquals(77, Region.NONE.toLocal(77));
  }

  @Test
  void sequence_regionsAreResiduesModSharesStartingSmall_neverEqualAcrossRegions() {
    Region r0 = Region.of(0, 3);
    Region r2 = Region.of(2, 3);
    assertEquals(1, r0.sequence(r0.base() + 1));
    assertEquals(5, r0.sequence(r0.base() + 2));
    assertEquals(3, r2.sequence(r2.base() + 1));
    assertEquals(7, r2.sequence(r2.base() + 2));
    Set<Long> seen = new HashSet<>();
    for (int i = 0; i < 3; i++) {
      Region ri = Region.of(i, 3);
      for (long local = 1; local <= 1000; local++) {
        long seq = ri.sequence(ri.base() + local);
        assertTrue(seen.add(seq), "sequence " + seq + " of region " + ri + " repeats");
      }
    }
    assertEquals(42, Region.NONE.sequence(42));
    assertEquals(
        Long.MAX_VALUE - 4,
        r2.sequence(r2.base() + r2.maxLocalMaxId()),
        "the share's last integer still has a sequence");
    assertEquals(
        Long.MAX_VALUE,
        r0.sequence(Long.MAX_VALUE),
        "a row set past the share by hand saturates (past any width)");
  }

  @Test
  void sequencesLeft_countsIdsWhoseSequenceFitsTheWidth() {
    Region r1 = Region.of(1, 2); // sequences 2, 4, 6, ...
    long base = r1.base();
    assertEquals(4, r1.sequencesLeft(base + 1, 9), "2, 4, 6, 8");
    assertEquals(1, r1.sequencesLeft(base + 4, 9), "8");
    assertEquals(0, r1.sequencesLeft(base + 5, 9));
    assertEquals(0, r1.sequencesLeft(base + 1, 1));
    assertEquals(9, Region.NONE.sequencesLeft(1, 9));
    for (long cursor = 1; cursor < 12; cursor++) {
      long counted = 0;
      for (long id = base + cursor; r1.sequence(id) <= 9; id++) {
        counted++;
      }
      assertEquals(counted, r1.sequencesLeft(base + cursor, 9), "cursor " + cursor);
    }
  }

  @Test
  void snowflake_defaultRangeIsTheShare_givenRangeMustLieWithin() {
    SnowflakeConfig all =
        SnowflakeConfig.parse("0-1023", Duration.ofSeconds(30), "1288834974657", "41/10/12");
    SnowflakeConfig share = Region.of(1, 3).snowflake(all, false);
    assertEquals(256, share.fromId());
    assertEquals(511, share.toId());
    SnowflakeConfig part =
        SnowflakeConfig.parse("300-400", Duration.ofSeconds(30), "1288834974657", "41/10/12");
    assertEquals(part, Region.of(1, 3).snowflake(part, true));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Region.of(0, 2).snowflake(all, true));
    assertEquals(
        "--worker-id-range 0-1023 must lie within region 0/2's worker IDs 0-511", e.getMessage());
    SnowflakeConfig fewBits =
        SnowflakeConfig.parse("0-3", Duration.ofSeconds(30), "1288834974657", "41/2/12");
    e =
        assertThrows(
            IllegalArgumentException.class, () -> Region.of(4, 5).snowflake(fewBits, false));
    assertTrue(e.getMessage().startsWith("--region 4/5 splits worker IDs in 8"), e.getMessage());
    assertEquals(all, Region.NONE.snowflake(all, true));
  }
}
