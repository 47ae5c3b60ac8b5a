package io.leaf.server.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.engine.EngineConfig;
import io.leaf.server.engine.EngineListeners;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.engine.TagBuffer;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.store.TagNotFoundException;
import io.leaf.server.testing.Blocking;
import io.leaf.server.testing.EngineThreadsFixture;
import io.leaf.server.testing.FakeTicker;
import io.leaf.server.testing.ManualScheduler;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Tests of {@link IdleTagSweeper} driven through {@link IdleTagSweeper#runOnce} by a fake clock.
 */
class IdleTagSweeperTest {

  private static final Duration TTL = Duration.ofSeconds(10);
  private static final Duration TICK = Duration.ofSeconds(1);
  private static final long WAIT = TimeUnit.SECONDS.toNanos(5);

  private final FakeTicker ticker = new FakeTicker();
  private final MemorySegmentStore store = new MemorySegmentStore();
  private final SweepIntake intake = new SweepIntake();
  private final EngineThreadsFixture threads = new EngineThreadsFixture(EngineConfig.DEFAULTS);
  private final SegmentAllocator allocator =
      new SegmentAllocator(
          store,
          ticker,
          EngineConfig.DEFAULTS,
          threads.threads(),
          EngineListeners.NONE.withOnCached(intake));
  private final ManualScheduler scheduler = new ManualScheduler(ticker);
  private final IdleTagSweeper sweeper =
      new IdleTagSweeper(allocator, intake, TTL, TICK, scheduler);

  @AfterEach
  void tearDown() {
    sweeper.close();
    allocator.close();
    threads.close();
  }

  private long nextId(String tag) {
    return Blocking.nextId(allocator, tag, WAIT);
  }

  private int sweepAfter(Duration elapsed) {
    ticker.advance(elapsed);
    return sweeper.runOnce(ticker.read());
  }

  @Test
  void constructor_ttlNotPositive_throwsNamingValue() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new IdleTagSweeper(allocator, intake, Duration.ZERO, TICK, scheduler));
    assertEquals("idleTtl must be positive: PT0S", e.getMessage(), "message names the value");
  }

  @Test
  void constructor_tickNotPositive_throwsNamingValue() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new IdleTagSweeper(allocator, intake, TTL, Duration.ofMillis(-5), scheduler));
    assertEquals("tick must be positive: PT-0.005S", e.getMessage(), "message names the value");
  }

  @Test
  void runOnce_tagIdleForTtl_evictsIt() {
    store.createTag("a", 1, 10, "");
    nextId("a");
    TagBuffer buffer = allocator.cached("a").orElseThrow();
    sweeper.runOnce(ticker.read());

    assertEquals(0, sweepAfter(TTL.minus(TICK)), "idle for less than the TTL: kept");
    assertTrue(allocator.cached("a").isPresent(), "still cached before the TTL");

    assertEquals(1, sweepAfter(TICK.multipliedBy(2)), "idle for TTL plus a tick: evicted");
    assertFalse(allocator.cached("a").isPresent(), "no longer cached");
    assertTrue(buffer.isClosed(), "the evicted buffer is closed");
    assertEquals(1, sweeper.evictions(), "eviction counter");
    assertEquals(0, sweeper.scheduled(), "an evicted tag leaves the wheel");
  }

  @Test
  void runOnce_tagTouchedWithinTtl_keepsItUntilIdleForTtl() {
    store.createTag("a", 1, 10, "");
    nextId("a");
    sweeper.runOnce(ticker.read());

    ticker.advance(Duration.ofSeconds(6));
    nextId("a");
    assertEquals(0, sweepAfter(Duration.ofSeconds(6)), "12 s after the first request, 6 s idle");
    assertTrue(allocator.cached("a").isPresent(), "a touched tag is kept");
    assertEquals(1, sweeper.scheduled(), "re-scheduled for the rest of its TTL");

    assertEquals(0, sweepAfter(Duration.ofSeconds(3)), "9 s idle");
    assertTrue(allocator.cached("a").isPresent(), "still within the TTL of the last request");
    assertEquals(1, sweepAfter(Duration.ofSeconds(2)), "11 s idle");
    assertFalse(allocator.cached("a").isPresent(), "evicted once idle for the TTL");
  }

  @Test
  void runOnce_oneIdleTagOneBusyTag_evictsOnlyTheIdleOne() {
    store.createTag("idle", 1, 10, "");
    store.createTag("busy", 1, 10, "");
    nextId("idle");
    nextId("busy");
    sweeper.runOnce(ticker.read());

    for (int second = 1; second <= 30; second++) {
      ticker.advance(Duration.ofSeconds(1));
      nextId("busy");
      sweeper.runOnce(ticker.read());
    }

    assertFalse(allocator.cached("idle").isPresent(), "idle tag evicted");
    assertTrue(allocator.cached("busy").isPresent(), "tag used every second kept");
    assertEquals(1, sweeper.evictions(), "only one eviction");
  }

  @Test
  void runOnce_evictedTag_nextIdReloadsWithLargerIds() {
    store.createTag("a", 1, 10, "");
    long highest = 0;
    for (int i = 0; i < 15; i++) {
      highest = Math.max(highest, nextId("a"));
    }
    TagBuffer before = allocator.cached("a").orElseThrow();
    sweeper.runOnce(ticker.read());
    assertEquals(1, sweepAfter(TTL.plus(TICK.multipliedBy(2))), "evicted");

    long next = nextId("a");

    assertTrue(next > highest, "after eviction " + next + " must exceed " + highest);
    TagBuffer after = allocator.cached("a").orElseThrow();
    assertNotSame(before, after, "a fresh buffer");
    assertFalse(after.isClosed(), "the fresh buffer is open");
    sweeper.runOnce(ticker.read());
    assertEquals(1, sweeper.scheduled(), "the fresh buffer is scheduled in its turn");
  }

  @Test
  void runOnce_tagMissingFromStore_neverHandedOver() {
    assertThrows(TagNotFoundException.class, () -> nextId("missing"));
    sweeper.runOnce(ticker.read());
    assertEquals(0, sweeper.scheduled(), "a tag the database lacks never reaches the wheel");

    assertEquals(0, sweepAfter(TICK.multipliedBy(2)), "nothing to evict");
    assertEquals(0, sweeper.evictions(), "the allocator had already dropped it");
  }

  @Test
  void runOnce_manyTagsHalfTouched_evictsExactlyTheUntouchedHalf() {
    for (int i = 0; i < 200; i++) {
      store.createTag("t" + i, 1, 5, "");
      nextId("t" + i);
    }
    sweeper.runOnce(ticker.read());
    ticker.advance(Duration.ofSeconds(5));
    for (int i = 0; i < 200; i += 2) {
      nextId("t" + i);
    }

    int evicted = sweepAfter(Duration.ofSeconds(7));

    assertEquals(100, evicted, "the untouched half, idle for 12 s");
    assertEquals(100, allocator.cachedCount(), "the touched half stays");
    for (int i = 0; i < 200; i++) {
      assertEquals(i % 2 == 0, allocator.cached("t" + i).isPresent(), "cached state of t" + i);
    }
    assertEquals(100, sweepAfter(Duration.ofSeconds(5)), "the rest once idle for the TTL");
    assertEquals(0, allocator.cachedCount(), "nothing cached");
  }

  @Test
  void runOnce_timeStandsStill_evictsNothing() {
    store.createTag("a", 1, 10, "");
    nextId("a");

    for (int i = 0; i < 5; i++) {
      assertEquals(0, sweeper.runOnce(ticker.read()), "run " + i);
    }

    assertTrue(allocator.cached("a").isPresent(), "kept");
  }

  @Test
  void start_calledTwice_throwsIllegalState() {
    sweeper.start();

    IllegalStateException e = assertThrows(IllegalStateException.class, sweeper::start);
    assertEquals("idle-tag sweeper already started", e.getMessage(), "message");
  }

  @Test
  void start_sweepsAtOnceThenOneTickAfterEachSweep() {
    store.createTag("a", 1, 10, "");
    nextId("a");
    sweeper.start();
    assertEquals(1, scheduler.runDue(), "the first sweep runs at once");
    assertEquals(1, sweeper.scheduled(), "and schedules the cached tag");

    ticker.advance(TICK.minusNanos(1));
    assertEquals(0, scheduler.runDue(), "no sweep before a tick has passed");
    ticker.advance(TTL);
    assertEquals(1, scheduler.runDue(), "the next sweep one tick after the last");
    assertEquals(1, sweeper.evictions(), "which evicts the tag idle for its TTL");
    assertTrue(allocator.cached("a").isEmpty(), "evicted");
  }

  @Test
  void close_startedSweeper_stopsItsSweeps() {
    sweeper.start();
    assertTrue(sweeper.isRunning(), "running after start");

    sweeper.close();

    assertFalse(sweeper.isRunning(), "no sweep scheduled any more");
    assertTrue(scheduler.isShutdown(), "its scheduler shut down");
    ticker.advance(TICK.multipliedBy(2));
    assertEquals(0, scheduler.runDue(), "nothing runs after close");
  }

  @Test
  void close_thenNewBuffers_areNoLongerHandedOver() {
    sweeper.close();
    store.createTag("a", 1, 10, "");
    nextId("a");

    sweeper.runOnce(ticker.read());

    assertEquals(0, sweeper.scheduled(), "a closed sweeper takes no new buffers");
  }
}
