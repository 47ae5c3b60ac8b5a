package io.leaf.server.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.store.IdOverflowException;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.store.StoreUnavailableException;
import io.leaf.server.store.TagNotFoundException;
import io.leaf.server.testing.ControllableStore;
import io.leaf.server.testing.EngineThreadsFixture;
import io.leaf.server.testing.FakeTicker;
import io.leaf.server.testing.IdChecks;
import io.leaf.server.testing.ManualExecutor;
import io.leaf.server.testing.ManualTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * ReserveIds in the engine: the buffered segments first, the rest from one dedicated write of
 * exactly the missing amount, at most 3 ascending disjoint ranges, and no write once the call's
 * deadline passed or it was cancelled. The dedicated write and the segment loads run on executors
 * the test drives: a load runs when the test says, never on a thread of its own.
 */
@Timeout(60)
class RangeReservationTest {

  private static final long WAIT = TimeUnit.SECONDS.toNanos(10);

  private final FakeTicker ticker = new FakeTicker();
  private final ManualTimer timer = new ManualTimer(ticker);
  private final MemorySegmentStore memory = new MemorySegmentStore();
  private final ControllableStore store = new ControllableStore(memory);
  private final ManualExecutor loads = new ManualExecutor();
  private final EngineThreadsFixture threads = EngineThreadsFixture.manual(loads, timer);
  private final SegmentAllocator allocator =
      new SegmentAllocator(store, ticker, EngineConfig.DEFAULTS, threads.threads());
  private final List<Runnable> queued = new ArrayList<>();
  private final Executor database = queued::add;

  @AfterEach
  void tearDown() {
    store.release();
    allocator.close();
    threads.close();
  }

  private CompletableFuture<IdRanges> reserve(String tag, int count) {
    return allocator.reserve(tag, count, allocator.deadline(WAIT, true), database);
  }

  private void load(String tag) throws Exception {
    CompletableFuture<Void> loaded = allocator.initCache(tag, allocator.deadline(WAIT, false));
    loads.runAll();
    loaded.get(0, TimeUnit.SECONDS);
  }

  /** One NextId, the loads it starts or waits for run first. */
  private long nextId(String tag) throws Exception {
    CompletableFuture<Long> id = allocator.nextId(tag, allocator.deadline(WAIT, false));
    loads.runAll();
    return id.get(0, TimeUnit.SECONDS);
  }

  private void runQueued() {
    List<Runnable> now = new ArrayList<>(queued);
    queued.clear();
    now.forEach(Runnable::run);
  }

  /** Ranges ascending, disjoint, non-empty, at most 3, adding up to {@code count}. */
  private static void assertWellFormed(IdRanges r, int count) {
    assertTrue(r.rangeCount() >= 1 && r.rangeCount() <= 3, "1 to 3 ranges, got " + r.rangeCount());
    assertEquals(count, r.size(), "IDs in the ranges");
    for (int i = 0; i < r.rangeCount(); i++) {
      assertTrue(r.from(i) < r.to(i), "range " + i + " not empty");
      if (i > 0) {
        assertTrue(
            r.to(i - 1) < r.from(i),
            "range "
                + i
                + " starts after range "
                + (i - 1)
                + " ends with a gap: "
                + r.to(i - 1)
                + " vs "
                + r.from(i));
      }
    }
  }

  /** Runs the preload the calls so far started; the next segment is then buffered. */
  private void runPreload(String tag) {
    assertEquals(1, loads.runAll(), "one preload of " + tag + " was started");
    assertTrue(allocator.snapshot(tag).orElseThrow().next() != null, "the next segment is in");
  }

  private static Throwable failureOf(CompletableFuture<?> f) {
    assertTrue(f.isDone(), "finished");
    return assertThrows(ExecutionException.class, () -> f.get(0, TimeUnit.SECONDS)).getCause();
  }

  @Test
  void reserve_currentSegmentHoldsEnough_oneRangeInlineWithoutWrite() throws Exception {
    memory.createTag("t", 1, 100, null);
    load("t");
    CompletableFuture<IdRanges> r = reserve("t", 30);
    assertTrue(r.isDone(), "answered on the caller's thread");
    assertWellFormed(r.get(), 30);
    assertEquals(1, r.get().from(0), "the segment's first ID");
    assertTrue(queued.isEmpty(), "no dedicated write");
  }

  @Test
  void reserve_pastCurrentWithNextLoading_currentThenDedicatedOfExactlyTheRest() throws Exception {
    memory.createTag("t", 1, 100, null);
    load("t");
    CompletableFuture<IdRanges> r = reserve("t", 250);
    assertEquals(1, queued.size(), "the rest goes to the database executor");
    assertFalse(r.isDone(), "waits for the dedicated write");
    runQueued();
    IdRanges got = r.get(0, TimeUnit.SECONDS);
    assertEquals(1, loads.pending(), "taking the current segment started the preload, not run");
    assertWellFormed(got, 250);
    // The dedicated write took the row before the preload: its range follows the current
    // segment directly, and is merged with it.
    assertEquals(1, got.from(0), "starts at the current segment");
    assertTrue(got.to(0) >= 101, "the whole current segment first, got " + got.to(0));
    assertTrue(
        store.requestedSteps().contains(150),
        "one write of exactly the rest (150), got " + store.requestedSteps());
  }

  @Test
  void reserve_currentAndNextLoaded_bothSegmentsThenDedicated() throws Exception {
    memory.createTag("t", 1, 100, null);
    load("t");
    reserve("t", 50).get(0, TimeUnit.SECONDS);
    runPreload("t");
    CompletableFuture<IdRanges> r = reserve("t", 1_000);
    runQueued();
    IdRanges got = r.get(0, TimeUnit.SECONDS);
    assertWellFormed(got, 1_000);
    assertEquals(51, got.from(0), "the rest of the current segment first");
    assertTrue(got.to(0) >= 201, "the next segment follows the current one, got " + got.to(0));
    assertTrue(
        store.requestedSteps().contains(850),
        "one write of 1000 - 50 - 100, got " + store.requestedSteps());
  }

  @Test
  void reserve_tagBackingOffAfterOutage_failsAtOnceWithoutDedicatedWrite() throws Exception {
    memory.createTag("t", 1, 10, null);
    load("t");
    store.failLoads();
    for (int i = 0; i < 10; i++) {
      allocator.nextId("t", allocator.deadline(WAIT, false)).get(0, TimeUnit.SECONDS);
    }
    // The eleventh waits for the failing preload; the tag backs off when it fails, and the fake
    // ticker keeps it backing off.
    CompletableFuture<Long> dry = allocator.nextId("t", allocator.deadline(WAIT, false));
    assertFalse(dry.isDone(), "waits for the preload");
    assertEquals(1, loads.runAll(), "the preload, which fails");
    assertThrows(ExecutionException.class, () -> dry.get(0, TimeUnit.SECONDS));
    CompletableFuture<IdRanges> r = reserve("t", 50);
    assertTrue(r.isDone(), "answered at once while the database is known down");
    assertInstanceOf(StoreUnavailableException.class, failureOf(r));
    assertTrue(queued.isEmpty(), "no dedicated write that would wait out a connection timeout");
  }

  @Test
  void reserve_preloadCommitsBeforeDedicatedWrite_laterNextIdAboveTheReservation()
      throws Exception {
    memory.createTag("t", 1, 100, null);
    load("t");
    CompletableFuture<IdRanges> r = reserve("t", 250); // queues the write of 150, takes nothing
    assertEquals(1, queued.size(), "the dedicated write is queued");
    for (int i = 0; i < 11; i++) {
      allocator.nextId("t", allocator.deadline(WAIT, false)).get(); // 1..11: starts the preload
    }
    runPreload("t"); // [101, 201) commits first
    runQueued(); // then the dedicated write: [201, 351)
    IdRanges got = r.get(10, TimeUnit.SECONDS);
    assertWellFormed(got, 250);
    long reservedEnd = got.to(got.rangeCount() - 1);
    assertEquals(351, reservedEnd, "the dedicated range ends the reservation");

    long next = nextId("t");
    assertTrue(
        next >= reservedEnd,
        "a later NextId is above the reserved IDs, got "
            + next
            + " after a reservation ending at "
            + reservedEnd);
  }

  @Test
  void reserve_nextLoadedAfterwards_noIdTwiceWithLaterCalls() throws Exception {
    memory.createTag("t", 1, 10, null);
    load("t");
    List<long[]> seen = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      CompletableFuture<IdRanges> r = reserve("t", 1 + i * 7);
      runQueued();
      IdRanges got = r.get(10, TimeUnit.SECONDS);
      assertWellFormed(got, 1 + i * 7);
      seen.add(got.toArray());
      seen.add(new long[] {nextId("t")});
    }
    IdChecks.assertAllDistinct(seen.toArray(new long[0][]));
  }

  @Test
  void reserve_dedicatedWouldPassMaxLong_outOfRangeAndMaxIdUnchanged() throws Exception {
    memory.createTag("top", Long.MAX_VALUE - 150, 100, null);
    load("top");
    CompletableFuture<IdRanges> r = reserve("top", 200);
    runQueued();
    assertInstanceOf(IdOverflowException.class, failureOf(r), "past 2^63-1");
    assertEquals(
        Long.MAX_VALUE - 50,
        memory.getTag("top").orElseThrow().maxId(),
        "max_id where the first segment left it: nothing taken past 2^63-1");
  }

  @Test
  void reserve_unknownTag_tagNotFoundWithoutDedicatedWrite() throws Exception {
    CompletableFuture<IdRanges> r = reserve("missing", 10);
    loads.runAll();
    Throwable e =
        assertThrows(ExecutionException.class, () -> r.get(0, TimeUnit.SECONDS)).getCause();
    assertInstanceOf(TagNotFoundException.class, e, "unknown tag");
    assertTrue(queued.isEmpty(), "no dedicated write for a tag the database lacks");
  }

  @Test
  void reserve_databaseExecutorFull_limitExceeded() throws Exception {
    memory.createTag("t", 1, 100, null);
    load("t");
    CompletableFuture<IdRanges> r =
        allocator.reserve(
            "t",
            500,
            allocator.deadline(WAIT, true),
            task -> {
              throw new LimitExceededException(
                  "too many calls waiting for the database", 1, "--max-queued-db-calls");
            });
    Throwable e = failureOf(r);
    assertInstanceOf(LimitExceededException.class, e, "refused at once");
    assertTrue(e.getMessage().contains("--max-queued-db-calls"), "names the flag: " + e);
  }

  @Test
  void reserve_deadlinePassesWhileQueued_timeoutAndNoWrite() throws Exception {
    memory.createTag("t", 1, 100, null);
    load("t");
    CompletableFuture<IdRanges> r = reserve("t", 500); // its preload stays queued
    assertEquals(1, queued.size(), "the dedicated write of the rest is queued");
    ticker.advance(Duration.ofSeconds(11));
    assertEquals(1, timer.fireDue(), "the deadline fires");
    Throwable e = failureOf(r);
    assertInstanceOf(SegmentWaitTimeoutException.class, e, "the caller's deadline");
    assertTrue(((SegmentWaitTimeoutException) e).callersDeadline(), "DEADLINE_EXCEEDED");
    runQueued();
    assertFalse(
        store.requestedSteps().contains(400),
        "no write after the deadline, got " + store.requestedSteps());
  }

  @Test
  void reserve_cancelledWhileQueued_noWriteAndTimerCleared() throws Exception {
    memory.createTag("t", 1, 100, null);
    load("t");
    CompletableFuture<IdRanges> r = reserve("t", 500); // its preload stays queued
    assertEquals(1, queued.size(), "the dedicated write of the rest is queued");
    assertTrue(r.cancel(false), "cancelled");
    assertEquals(0, timer.pending(), "the deadline task is gone");
    runQueued();
    assertFalse(
        store.requestedSteps().contains(400),
        "no write after a cancel, got " + store.requestedSteps());
  }

  @Test
  void reserve_databaseDownBeyondTheBuffer_failsAndLeavesTheBufferToNextId() throws Exception {
    memory.createTag("t", 1, 1000, null);
    load("t");
    assertEquals(1, allocator.nextId("t", allocator.deadline(WAIT, false)).get());
    store.failLoads();
    CompletableFuture<IdRanges> r = reserve("t", 3000);
    runQueued();
    assertInstanceOf(StoreUnavailableException.class, failureOf(r), "the write failed");
    for (long expected = 2; expected <= 900; expected++) {
      assertEquals(
          expected,
          allocator.nextId("t", allocator.deadline(WAIT, false)).get(),
          "NextId goes on through the buffered segment after the failed ReserveIds");
    }
    assertEquals(1, loads.runAll(), "the preload, which fails too");
    store.heal();
    ticker.advance(Duration.ofMinutes(1)); // past the back-off of the preload that failed
    CompletableFuture<IdRanges> again = reserve("t", 3000);
    runQueued();
    IdRanges ranges = again.get(10, TimeUnit.SECONDS);
    assertWellFormed(ranges, 3000);
    assertEquals(901, ranges.from(0), "the buffered rest first, once the write succeeded");
  }

  @Test
  void reserve_othersDrainTheBufferDuringTheWrite_twoDedicatedRangesNoRepeat() throws Exception {
    memory.createTag("t", 1, 100, null);
    load("t");
    CompletableFuture<IdRanges> r = reserve("t", 150);
    assertEquals(1, queued.size(), "the write is queued before any buffered ID is taken");
    // The preload these calls start fails: the buffer is dry when the write returns.
    store.failLoads();
    long[] others = new long[100];
    for (int i = 0; i < 100; i++) {
      others[i] = allocator.nextId("t", allocator.deadline(WAIT, false)).get();
    }
    assertEquals(1, loads.runAll(), "the preload those calls started, which fails");
    assertEquals(2, store.attempts(), "the first load and the preload reached the store");
    store.heal();
    runQueued();
    IdRanges ranges = r.get(10, TimeUnit.SECONDS);
    assertWellFormed(ranges, 150);
    assertTrue(
        ranges.from(0) > 100,
        "both dedicated writes lie above the drained segment: " + ranges.from(0));
    IdChecks.assertAllDistinct(others, ranges.toArray());
  }
}
