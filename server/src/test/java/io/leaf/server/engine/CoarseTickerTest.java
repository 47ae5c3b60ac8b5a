package io.leaf.server.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CoarseTickerTest {

  @Test
  void read_overTime_advancesAndNeverGoesBack() {
    try (CoarseTicker ticker = new CoarseTicker(Duration.ofMillis(1))) {
      long first = ticker.read();
      long previous = first;
      long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (previous == first && System.nanoTime() < giveUp) {
        long now = ticker.read();
        assertTrue(now >= previous, "went back from " + previous + " to " + now);
        previous = now;
      }
      assertTrue(previous > first, "the updater thread moves the reading within 10 s");
      assertTrue(previous <= System.nanoTime(), "a reading is never ahead of the system ticker");
    }
  }

  @Test
  void close_stopsUpdates() throws Exception {
    CoarseTicker ticker = new CoarseTicker(Duration.ofMillis(1));
    ticker.close();
    // A last update may still be running when close() returns; after it, nothing changes.
    Thread.sleep(20);
    long stopped = ticker.read();
    Thread.sleep(50);
    assertEquals(stopped, ticker.read(), "no update after close");
  }

  @Test
  void constructor_nonPositiveResolution_rejectedNamingValue() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new CoarseTicker(Duration.ZERO));
    assertEquals("resolution must be positive: PT0S", e.getMessage());
  }
}
