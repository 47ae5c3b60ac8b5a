package io.leaf.server.snowflake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class SnowflakeLayoutTest {

  @Test
  void default_isMeituanLayout_runsOutIn2080() {
    SnowflakeLayout d = SnowflakeLayout.DEFAULT;
    assertEquals(1288834974657L, d.epochMs(), "Meituan Leaf's twepoch");
    assertEquals(41, d.timestampBits(), "timestamp bits");
    assertEquals(10, d.workerIdBits(), "worker bits");
    assertEquals(12, d.sequenceBits(), "sequence bits");
    assertEquals(2080, d.endYear(), "41 bits of milliseconds from 2010 last until 2080");
    assertEquals(4096, d.idsPerMillisecond(), "12 sequence bits");
  }

  @Test
  void constructor_bitsAddingToMoreThan63_throws() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new SnowflakeLayout(0, 41, 10, 13));
    assertTrue(e.getMessage().contains("at most 63"), e.getMessage());
  }

  @Test
  void layout53Bits_largestIdBelow2To53_andLargerIdsRefusedByDecompose() {
    SnowflakeLayout js = new SnowflakeLayout(SnowflakeLayout.MEITUAN_EPOCH_MS, 41, 5, 7);
    assertTrue(js.javascriptSafe(), "53 bits");
    assertEquals(2080, js.endYear(), "41 timestamp bits still last until 2080");
    assertEquals(128, js.idsPerMillisecond(), "7 sequence bits");
    long largest = js.compose(js.maxTimestampMs(), js.maxWorkerId(), js.maxSequence());
    assertEquals((1L << 53) - 1, largest, "Number.MAX_SAFE_INTEGER");
    assertEquals(largest, js.decompose(largest).id(), "decodes");
    assertThrows(IllegalArgumentException.class, () -> js.decompose(1L << 53), "not of it");
    assertFalse(SnowflakeLayout.DEFAULT.javascriptSafe(), "63 bits are not");
  }

  @Test
  void decompose_everyLayout_roundTripsCompose() {
    Random random = new Random(42);
    int layouts = 0;
    for (int w = 1; w <= 20; w++) {
      for (int s = 1; s <= 22; s++) {
        int t = 63 - w - s;
        if (t < 30) {
          continue;
        }
        SnowflakeLayout layout = new SnowflakeLayout(SnowflakeLayout.MEITUAN_EPOCH_MS, t, w, s);
        layouts++;
        long span = layout.maxTimestampMs() - layout.epochMs();
        long[] times = {
          layout.epochMs(),
          layout.maxTimestampMs(),
          layout.epochMs() + (long) (random.nextDouble() * span)
        };
        int[] workers = {0, layout.maxWorkerId(), random.nextInt(layout.maxWorkerId() + 1)};
        int[] sequences = {0, layout.maxSequence(), random.nextInt(layout.maxSequence() + 1)};
        for (long ts : times) {
          for (int worker : workers) {
            for (int seq : sequences) {
              long id = layout.compose(ts, worker, seq);
              assertTrue(id >= 0, "IDs are positive: " + layout + " " + id);
              assertEquals(
                  new SnowflakeLayout.Parts(id, ts, worker, seq),
                  layout.decompose(id),
                  "round trip in " + layout);
            }
          }
        }
        assertEquals(
            Long.MAX_VALUE,
            layout.compose(layout.maxTimestampMs(), layout.maxWorkerId(), layout.maxSequence()),
            "the largest parts fill 63 bits");
      }
    }
    assertTrue(layouts > 200, "all layouts covered: " + layouts);
  }

  @Test
  void compose_outOfRangeParts_throws() {
    SnowflakeLayout d = SnowflakeLayout.DEFAULT;
    assertThrows(IllegalArgumentException.class, () -> d.compose(d.epochMs() - 1, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> d.compose(d.maxTimestampMs() + 1, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> d.compose(d.epochMs(), 1024, 0));
    assertThrows(IllegalArgumentException.class, () -> d.compose(d.epochMs(), 0, 4096));
    assertThrows(IllegalArgumentException.class, () -> d.decompose(-1));
  }
}
