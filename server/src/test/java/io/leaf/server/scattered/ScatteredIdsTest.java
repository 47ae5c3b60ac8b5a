package io.leaf.server.scattered;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.v1.IdBatch;
import io.leaf.v1.NextIdResponse;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ScatteredIdsTest {

  @Test
  void scatter_firstMillionValues_bijectionOntoPositiveLongs() {
    Set<Long> seen = new HashSet<>(2_000_000);
    for (long v = 1; v <= 1_000_000; v++) {
      long id = ScatteredIds.scatter(v);
      assertTrue(id > 0, "positive: " + v + " → " + id);
      assertTrue(seen.add(id), "unique: " + v + " → " + id);
      assertEquals(v, ScatteredIds.sequence(id), "decodes back: " + id);
    }
  }

  @Test
  void scatter_randomValues_ownInverseOverTheWholeRange() {
    Random random = new Random(5);
    for (int i = 0; i < 1_000_000; i++) {
      long v = random.nextLong() & Long.MAX_VALUE;
      assertEquals(v, ScatteredIds.sequence(ScatteredIds.scatter(v)), "round trip " + v);
    }
    assertEquals(Long.MAX_VALUE, ScatteredIds.scatter(Long.MAX_VALUE), "all 63 bits stay set");
    assertEquals(1L << 62, ScatteredIds.scatter(1), "the lowest bit becomes the highest");
    assertEquals(1, ScatteredIds.scatter(1L << 62), "and back");
  }

  @Test
  void scatter_tenThousandConsecutive_uniqueNotMonotonicAndSpread() {
    Set<Long> ids = new HashSet<>();
    int ups = 0;
    int downs = 0;
    long last = -1;
    int[] topQuarter = new int[4];
    for (long v = 1_000; v < 11_000; v++) {
      long id = ScatteredIds.scatter(v);
      assertTrue(ids.add(id), "unique");
      if (last >= 0) {
        if (id > last) {
          ups++;
        } else {
          downs++;
        }
      }
      topQuarter[(int) (id >>> 61)]++;
      last = id;
    }
    assertEquals(10_000, ids.size(), "10,000 unique IDs");
    assertTrue(ups > 1_000 && downs > 1_000, "not monotonic: " + ups + " up, " + downs + " down");
    for (int q = 0; q < 4; q++) {
      assertEquals(2_500, topQuarter[q], "each quarter of the key space gets its share: " + q);
    }
  }

  @Test
  void scatter_messages_everyIdMappedInOrder() {
    IdBatch batch = IdBatch.newBuilder().addIds(1).addIds(2).addIds(3).build();
    IdBatch scattered = ScatteredIds.scatter(batch);
    assertEquals(3, scattered.getIdsCount(), "count");
    for (int i = 0; i < 3; i++) {
      assertEquals(ScatteredIds.scatter(batch.getIds(i)), scattered.getIds(i), "ID " + i);
    }
    assertEquals(
        1L << 62,
        ScatteredIds.scatter(NextIdResponse.newBuilder().setId(1).build()).getId(),
        "unary");
  }

  @Test
  void scatterAndSequence_negative_refused() {
    assertThrows(IllegalArgumentException.class, () -> ScatteredIds.scatter(-1));
    assertThrows(IllegalArgumentException.class, () -> ScatteredIds.sequence(Long.MIN_VALUE));
  }
}
