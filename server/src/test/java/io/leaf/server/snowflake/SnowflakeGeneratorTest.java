package io.leaf.server.snowflake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.base.Ticker;
import io.leaf.server.engine.IdRanges;
import io.leaf.server.engine.LimitExceededException;
import io.leaf.server.testing.FakeTicker;
import io.leaf.server.testing.FakeWallClock;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SnowflakeGeneratorTest {

  private static final long NOW = 1_750_000_000_000L;
  private static final SnowflakeLayout LAYOUT = SnowflakeLayout.DEFAULT;

  private final FakeWallClock wall = new FakeWallClock(NOW);
  private final FakeTicker ticker = new FakeTicker();
  private final SnowflakeGenerator generator = new SnowflakeGenerator(LAYOUT, wall, ticker);

  /** A lease on {@code worker} valid for a minute of the monotonic clock, covering a day. */
  private void lease(int worker) {
    generator.activate(
        worker,
        generator.prepare(0),
        NOW + Duration.ofDays(1).toMillis(),
        ticker.read() + Duration.ofMinutes(1).toNanos(),
        NOW + 60_000,
        "fenced");
  }

  @Test
  void nextAndTake_readEachClockOncePerCall() {
    AtomicInteger wallReads = new AtomicInteger();
    AtomicInteger tickerReads = new AtomicInteger();
    SnowflakeGenerator counted =
        new SnowflakeGenerator(
            LAYOUT,
            () -> {
              wallReads.incrementAndGet();
              return wall.instant();
            },
            new Ticker() {
              @Override
              public long read() {
                tickerReads.incrementAndGet();
                return ticker.read();
              }
            });
    counted.activate(
        3,
        counted.prepare(0),
        NOW + Duration.ofDays(1).toMillis(),
        ticker.read() + Duration.ofMinutes(1).toNanos(),
        NOW + 60_000,
        "fenced");
    wallReads.set(0);
    tickerReads.set(0);
    counted.next();
    assertEquals(1, wallReads.get(), "one wall-clock read per ID");
    assertEquals(1, tickerReads.get(), "one monotonic read per ID");
    counted.take(10_000, new IdRanges());
    assertEquals(2, wallReads.get(), "one wall-clock read per chunk");
    assertEquals(2, tickerReads.get(), "one monotonic read per chunk");
  }

  @Test
  void next_withoutLease_throwsNoWorkerLease() {
    NoWorkerLeaseException e = assertThrows(NoWorkerLeaseException.class, generator::next);
    assertTrue(e.getMessage().contains("lease"), e.getMessage());
  }

  @Test
  void next_withLease_carriesWallClockWorkerAndSequence() {
    lease(7);
    long id = generator.next();
    assertEquals(new SnowflakeLayout.Parts(id, NOW, 7, 0), LAYOUT.decompose(id), "first ID");
    assertEquals(
        new SnowflakeLayout.Parts(id + 1, NOW, 7, 1),
        LAYOUT.decompose(generator.next()),
        "second ID in the same millisecond");
  }

  @Test
  void next_sequenceFull_movesToNextMillisecondWithoutWaiting() {
    lease(1);
    long last = -1;
    for (int i = 0; i < 4096; i++) {
      last = generator.next();
    }
    assertEquals(NOW, LAYOUT.decompose(last).timestampMs(), "4096 IDs fit one millisecond");
    long next = generator.next();
    assertEquals(
        new SnowflakeLayout.Parts(next, NOW + 1, 1, 0),
        LAYOUT.decompose(next),
        "the 4097th borrows the next millisecond while the clock stands still");
    assertEquals(1, generator.aheadOfWallMs(), "one millisecond ahead of the wall clock");
  }

  @Test
  void next_wallClockStepsBack30s_neverRepeatsAndKeepsAnswering() {
    lease(3);
    Set<Long> seen = new HashSet<>();
    long last = -1;
    for (int round = 0; round < 200; round++) {
      if (round == 100) {
        wall.advance(Duration.ofSeconds(-30));
      }
      for (int i = 0; i < 1000; i++) {
        long id = generator.next();
        assertTrue(id > last, "IDs increase: " + id + " after " + last);
        assertTrue(seen.add(id), "no repeat: " + id);
        last = id;
      }
      wall.advance(Duration.ofMillis(1));
      ticker.advance(Duration.ofMillis(1));
    }
    long ahead = generator.aheadOfWallMs();
    assertTrue(
        ahead > 29_000 && ahead <= 30_000,
        "ID time runs ahead by the step, less what the wall clock has caught up: " + ahead);
    // The wall clock catches up with the IDs' time at its own pace; the IDs then follow it.
    wall.advance(Duration.ofSeconds(31));
    ticker.advance(Duration.ofSeconds(31));
    long id = generator.next();
    assertEquals(wall.millis(), LAYOUT.decompose(id).timestampMs(), "back on the wall clock");
    assertEquals(0, generator.aheadOfWallMs(), "no longer ahead");
  }

  @Test
  void next_sequenceUsedUpBorrowBoundAhead_refusesNamingTheLimit() {
    lease(0);
    long issued = 0;
    LimitExceededException refused = null;
    while (refused == null) {
      try {
        generator.next();
        issued++;
      } catch (LimitExceededException e) {
        refused = e;
      }
    }
    assertEquals(
        (SnowflakeGenerator.MAX_BORROW_MS + 1) * 4096,
        issued,
        "the current millisecond and " + SnowflakeGenerator.MAX_BORROW_MS + " borrowed ones");
    assertTrue(refused.getMessage().contains("--snowflake-bits"), refused.getMessage());
    ticker.advance(Duration.ofMillis(5));
    generator.next();
  }

  @Test
  void take_streamChunks_borrowLessThanUnaryAndResumeWithTime() {
    lease(5);
    IdRanges ids = new IdRanges();
    int taken = generator.take(1_000_000, ids);
    assertEquals(
        (SnowflakeGenerator.STREAM_BORROW_MS + 1) * 4096,
        taken,
        "streams borrow " + SnowflakeGenerator.STREAM_BORROW_MS + " ms");
    assertEquals(SnowflakeGenerator.STREAM_BORROW_MS + 1, ids.rangeCount(), "a range per ms");
    assertEquals(0, generator.take(10, new IdRanges()), "none until time moves on");
    long unary = generator.next();
    assertTrue(unary > ids.to(ids.rangeCount() - 1) - 1, "unary calls still find IDs");
    ticker.advance(Duration.ofMillis(2));
    assertTrue(generator.take(10, new IdRanges()) > 0, "time moved on: more IDs");
  }

  @Test
  void next_pastFence_refusesUntilRenewed() {
    generator.activate(
        2,
        generator.prepare(0),
        NOW + 100_000,
        ticker.read() + Duration.ofSeconds(8).toNanos(),
        NOW + 10_000,
        "lease of worker 2 fenced");
    generator.next();
    ticker.advance(Duration.ofSeconds(8));
    NoWorkerLeaseException e = assertThrows(NoWorkerLeaseException.class, generator::next);
    assertEquals("lease of worker 2 fenced", e.getMessage(), "the fence's reason");
    generator.renewed(
        2, NOW + 100_000, ticker.read() + Duration.ofSeconds(8).toNanos(), NOW + 20_000);
    generator.next();
  }

  @Test
  void next_pastCeiling_refuses() {
    generator.activate(
        2,
        generator.prepare(0),
        NOW + 10,
        ticker.read() + Duration.ofMinutes(1).toNanos(),
        NOW + 10_000,
        "fenced");
    generator.next();
    wall.advance(Duration.ofMillis(11));
    ticker.advance(Duration.ofMillis(11));
    NoWorkerLeaseException e = assertThrows(NoWorkerLeaseException.class, generator::next);
    assertTrue(e.getMessage().contains("covers IDs up to"), e.getMessage());
  }

  @Test
  void activate_floorAboveWallClock_startsAboveFloorAndKeepsAnswering() {
    long floor = NOW + Duration.ofHours(1).toMillis();
    generator.activate(
        4,
        floor,
        generator.prepare(floor) + 60_000,
        ticker.read() + Duration.ofMinutes(1).toNanos(),
        NOW,
        "fenced");
    long id = generator.next();
    assertEquals(floor, LAYOUT.decompose(id).timestampMs(), "the claim's floor, not the clock");
    for (int i = 0; i < 100_000; i++) {
      assertTrue(generator.next() > id, "increasing");
    }
    assertTrue(generator.aheadOfWallMs() >= 3_600_000, "an hour ahead of the wall clock");
  }

  @Test
  void next_layoutRunsOut_outOfRange() {
    SnowflakeLayout tiny = new SnowflakeLayout(NOW - (1L << 30) + 5, 30, 20, 13);
    SnowflakeGenerator g = new SnowflakeGenerator(tiny, wall, ticker);
    g.activate(
        0,
        g.prepare(0),
        Long.MAX_VALUE,
        ticker.read() + Duration.ofMinutes(1).toNanos(),
        NOW,
        "fenced");
    g.next();
    wall.advance(Duration.ofMillis(10));
    ticker.advance(Duration.ofMillis(10));
    assertThrows(EpochExhaustedException.class, g::next);
  }
}
