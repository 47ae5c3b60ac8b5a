package io.leaf.server.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.testing.FakeTicker;
import io.leaf.server.testing.ManualScheduler;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CoarseTickerTest {

  private static final Duration RESOLUTION = Duration.ofMillis(1);

  @Test
  void read_onARealScheduler_advancesAndNeverGoesBack() {
    ScheduledExecutorService updater = Executors.newSingleThreadScheduledExecutor();
    try (CoarseTicker ticker = new CoarseTicker(RESOLUTION, updater)) {
      long first = ticker.read();
      long previous = first;
      long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (previous == first && System.nanoTime() < giveUp) {
        long now = ticker.read();
        assertTrue(now >= previous, "went back from " + previous + " to " + now);
        previous = now;
      }
      assertTrue(previous > first, "the updater moves the reading within 10 s");
      assertTrue(previous <= System.nanoTime(), "a reading is never ahead of the system ticker");
    } finally {
      updater.shutdownNow();
    }
  }

  @Test
  void read_betweenUpdates_staysAtTheLastUpdate() {
    FakeTicker clock = new FakeTicker();
    ManualScheduler updater = new ManualScheduler(clock);
    CoarseTicker ticker = new CoarseTicker(RESOLUTION, updater);
    long first = ticker.read();
    waitForSystemTickerPast(first);

    assertEquals(first, ticker.read(), "no update yet: the reading stays");
    clock.advance(RESOLUTION);
    assertEquals(1, updater.runDue(), "one update per resolution");
    long updated = ticker.read();

    assertTrue(updated > first, "the update stored the system ticker: " + updated);
    assertTrue(updated <= System.nanoTime(), "a reading is never ahead of the system ticker");
  }

  @Test
  void close_cancelsUpdatesAndLeavesTheSchedulerToItsMaker() {
    FakeTicker clock = new FakeTicker();
    ManualScheduler updater = new ManualScheduler(clock);
    CoarseTicker ticker = new CoarseTicker(RESOLUTION, updater);
    long stopped = ticker.read();
    waitForSystemTickerPast(stopped);

    ticker.close();
    clock.advance(RESOLUTION.multipliedBy(5));

    assertEquals(0, updater.runDue(), "no update runs after close");
    assertEquals(stopped, ticker.read(), "the reading stays where it was");
    assertFalse(updater.isShutdown(), "the scheduler is its maker's to shut down");
  }

  @Test
  void constructor_nonPositiveResolution_rejectedNamingValue() {
    ManualScheduler updater = new ManualScheduler(new FakeTicker());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> new CoarseTicker(Duration.ZERO, updater));
    assertEquals("resolution must be positive: PT0S", e.getMessage());
    assertEquals(0, updater.pending(), "nothing scheduled");
  }

  /** Spins (microseconds at most) until an update would store a later value than {@code t}. */
  private static void waitForSystemTickerPast(long t) {
    while (System.nanoTime() <= t) {
      Thread.onSpinWait();
    }
  }
}
