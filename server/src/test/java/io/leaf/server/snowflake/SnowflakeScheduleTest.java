package io.leaf.server.snowflake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.engine.IdRanges;
import io.leaf.server.testing.FakeTicker;
import io.leaf.server.testing.FakeWallClock;
import io.leaf.server.testing.ManualScheduler;
import io.leaf.server.testing.ManualSnowflakeClocks;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link Snowflake} on manual schedulers and fake clocks: its lease steps and chunk timer run only
 * when the test lets time pass, so the claim, quarantine, renewals, release and the stream timer
 * are stepped through without sleeping (a stalled lease thread: {@link SnowflakeLeaseReportTest}).
 */
class SnowflakeScheduleTest {

  private static final long NOW = 1_750_000_000_000L;
  private static final Duration TTL = Duration.ofSeconds(3);
  private final ManualSnowflakeClocks clocks = new ManualSnowflakeClocks(NOW);
  private final FakeWallClock wall = clocks.wall;
  private final FakeTicker ticker = clocks.ticker;
  private final MemoryWorkerLeaseStore store = new MemoryWorkerLeaseStore(wall);
  private final ManualScheduler leaseSteps = clocks.leaseSteps;
  private final ManualScheduler chunkTimer = clocks.timer;
  private final Snowflake snowflake =
      new Snowflake(
          store,
          SnowflakeLayout.DEFAULT,
          new Snowflake.Workers(7, 7, TTL),
          new Snowflake.Clocks(wall, ticker),
          new Snowflake.Threads(leaseSteps, chunkTimer));

  @Test
  void leaseSteps_claimQuarantineRenewalsAndRelease_onTheInjectedScheduler() {
    AtomicInteger reports = new AtomicInteger();
    snowflake.reportLeaseTo(reports::incrementAndGet);
    snowflake.start();
    // The first step ran on start (execute): claimed, quarantined, next step queued.
    assertEquals(7, store.row(7).map(WorkerLease::workerId).orElse(-1));
    assertThrows(NoWorkerLeaseException.class, snowflake::nextId);
    assertEquals(1, leaseSteps.pending(), "exactly the next lease step is queued");
    assertEquals(1, reports.get(), "reported after the claim");

    Duration quarantine = WorkerLeaseKeeper.quarantine(TTL);
    clocks.elapse(quarantine.minusMillis(100), true);
    assertThrows(NoWorkerLeaseException.class, snowflake::nextId, "still quarantined");
    clocks.elapse(Duration.ofMillis(200), true);
    long first = snowflake.nextId();
    assertEquals(7, SnowflakeLayout.DEFAULT.decompose(first).workerId());

    clocks.elapse(TTL.multipliedBy(10), true);
    assertTrue(snowflake.generator().leaseValid(), "renewed every third of the TTL");
    assertTrue(store.row(7).orElseThrow().expiresMs() > wall.millis(), "the row is renewed");
    assertTrue(snowflake.nextId() > first);
    assertEquals(1, leaseSteps.pending(), "one step queued at a time");
    int beforeClose = reports.get();
    assertTrue(beforeClose > 30 * 4, "the timer reports every 250 ms: " + beforeClose);

    snowflake.close();
    assertTrue(store.row(7).orElseThrow().expiresMs() == 0, "released on close");
    assertTrue(leaseSteps.isShutdown() && chunkTimer.isShutdown(), "both schedulers shut down");
    assertThrows(NoWorkerLeaseException.class, snowflake::nextId);
  }

  @Test
  void nextIds_sequenceUsedUp_resumedByTheChunkTimerOnceTheClockMoves() throws Exception {
    snowflake.start();
    clocks.elapse(WorkerLeaseKeeper.quarantine(TTL).plusMillis(100), true);
    int perMs = SnowflakeLayout.DEFAULT.idsPerMillisecond();
    CompletableFuture<IdRanges> all = snowflake.nextIds(Integer.MAX_VALUE);
    assertTrue(all.isDone(), "what the borrow allows, at once");
    CompletableFuture<IdRanges> next = snowflake.nextIds(perMs);
    assertFalse(next.isDone(), "none free until the clock moves");
    assertEquals(2, chunkTimer.pending(), "one retry queued beside the periodic report");
    chunkTimer.runDue();
    assertFalse(next.isDone(), "the retry waits for the clock");
    wall.advance(Duration.ofMillis(1));
    ticker.advance(Duration.ofMillis(1));
    chunkTimer.runDue();
    assertTrue(next.isDone(), "resumed a millisecond later");
    assertEquals(perMs, next.get().size());
    assertTrue(next.get().from(0) >= all.get().to(all.get().rangeCount() - 1));
  }
}
