package io.leaf.server.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.util.concurrent.Striped;
import io.leaf.server.store.IdOverflowException;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.store.SegmentRange;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.StoreUnavailableException;
import io.leaf.server.testing.Blocking;
import io.leaf.server.testing.ControllableStore;
import io.leaf.server.testing.EngineThreadsFixture;
import io.leaf.server.testing.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The double buffer of {@link SegmentAllocator} step by step, on a fake clock and a fake store:
 * preload, switch, waiting, back-off, lock striping, dynamic step and UpdateStep.
 *
 * <p>Loads run on the allocator's real loader threads. Where a test needs a load to have finished
 * it waits on the load's own future ({@link TagBuffer#pending}, set by the thread that starts it),
 * never on the clock.
 */
class SegmentAllocatorTest {

  private static final long WAIT = TimeUnit.SECONDS.toNanos(10);
  private static final Duration MIN_BACKOFF = Duration.ofMillis(100);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(1);

  private final FakeTicker ticker = new FakeTicker();
  private final MemorySegmentStore memory = new MemorySegmentStore();
  private final ControllableStore store = new ControllableStore(memory);
  private final List<SegmentAllocator> allocators = new ArrayList<>();
  private final List<EngineThreadsFixture> threads = new ArrayList<>();
  private final ExecutorService callers = Executors.newCachedThreadPool();
  private SegmentAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = allocator(store, EngineConfig.DEFAULTS);
  }

  @AfterEach
  void tearDown() {
    store.release();
    callers.shutdownNow();
    allocators.forEach(SegmentAllocator::close);
    threads.forEach(EngineThreadsFixture::close);
  }

  private SegmentAllocator allocator(SegmentStore s, EngineConfig config) {
    return allocator(s, config, EngineListeners.NONE);
  }

  private SegmentAllocator allocator(
      SegmentStore s, EngineConfig config, EngineListeners listeners) {
    EngineThreadsFixture t = new EngineThreadsFixture(config);
    threads.add(t);
    SegmentAllocator a =
        new SegmentAllocator(
            s, ticker, config.withBackoff(MIN_BACKOFF, MAX_BACKOFF), t.threads(), listeners);
    allocators.add(a);
    return a;
  }

  private long nextId(String tag) {
    return Blocking.nextId(allocator, tag, WAIT);
  }

  private void take(String tag, long n) {
    Blocking.nextIds(allocator, tag, Math.toIntExact(n), WAIT);
  }

  private TagBuffer buffer(String tag) {
    return allocator.cached(tag).orElseThrow(() -> new AssertionError(tag + " is not cached"));
  }

  private TagSnapshot snapshot(String tag) {
    return allocator.snapshot(tag).orElseThrow(() -> new AssertionError(tag + " has no segment"));
  }

  /** Waits for the load this thread just started (or that finished already). */
  private static void awaitLoad(TagBuffer b) throws Exception {
    CompletableFuture<Void> pending = b.pendingLoad();
    if (pending != null) {
      try {
        pending.get(10, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        // a failed load is a finished load; the test checks its effect
      }
    }
  }

  /** A new tag of step 100 with IDs 1..10 used: the next ID reaches the preload point. */
  private TagBuffer tagJustBelowPreload(String tag) {
    memory.createTag(tag, 1, 100, null);
    take(tag, 10);
    return buffer(tag);
  }

  private List<Long> ids(String tag, int n) {
    List<Long> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(nextId(tag));
    }
    return out;
  }

  /**
   * Lets {@code lasted} pass on the clock, then uses IDs up to the current segment's preload point,
   * which starts exactly one load, and on to the first ID of the segment that load brings. Expects
   * no segment loaded ahead and the preload point not yet passed (step of 10 or more).
   */
  private void nextLoadAfter(String tag, Duration lasted) {
    ticker.advance(lasted);
    TagSnapshot s = snapshot(tag);
    assertNull(s.next(), "no segment loaded ahead yet: " + s);
    TagSnapshot.SegmentView cur = s.current();
    long preloadAt = cur.start() + (cur.end() - cur.start()) / 10;
    assertTrue(cur.cursor() <= preloadAt, "preload point not passed yet: " + s);
    take(tag, preloadAt - cur.cursor() + 1);
    take(tag, cur.end() - preloadAt);
  }

  // ---- double buffer ----

  @Test
  void nextId_firstUse_loadsOnceWithTableStep() {
    memory.createTag("t", 1, 100, null);
    assertEquals(List.of(1L, 2L, 3L), ids("t", 3));
    assertEquals(1, store.loads(), "one load for the first segment");
    assertEquals(List.of(SegmentStore.TABLE_STEP), store.requestedSteps(), "the row's own step");
  }

  @Test
  void nextId_tenPercentUsed_startsOnePreloadThenSwitchesWithoutWaiting() throws Exception {
    TagBuffer b = tagJustBelowPreload("t");
    assertEquals(
        new TagSnapshot.SegmentView(1, 101, 11), snapshot("t").current(), "IDs 1..10 used");
    assertNull(b.pendingLoad(), "IDs 1..10 are below 10% of [1, 101): no preload yet");
    store.blockLoads();
    assertEquals(11, nextId("t"));
    assertNotNull(b.pendingLoad(), "ID 11 is 10% of [1, 101): the preload started");
    assertTrue(store.awaitLoadEntered(10_000), "the preload reached the store");

    // Many callers past the preload point while it is in flight start nothing more.
    CyclicBarrier start = new CyclicBarrier(8);
    List<Future<?>> racers = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      racers.add(
          callers.submit(
              () -> {
                start.await();
                for (int i = 0; i < 10; i++) {
                  nextId("t");
                }
                return null;
              }));
    }
    for (Future<?> f : racers) {
      f.get(10, TimeUnit.SECONDS);
    }
    store.release();
    awaitLoad(b);
    TagSnapshot s = snapshot("t");
    assertEquals(new TagSnapshot.SegmentView(101, 201, 101), s.next(), "next segment ready: " + s);
    assertEquals(92, s.current().cursor(), "91 IDs used of the current one: " + s);

    take("t", 100 - 91);
    assertEquals(101, nextId("t"), "the switch to the ready segment");
    assertEquals(2, store.attempts(), "exactly one preload, no load at the switch");
    assertNull(snapshot("t").next(), "nothing ahead right after the switch");
  }

  @Test
  void nextId_bothEmptyLoadInFlight_callersWaitThenAllSucceed() throws Exception {
    memory.createTag("t", 1, 100, null);
    store.blockLoads();
    List<Future<Long>> waiting = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      waiting.add(callers.submit(() -> nextId("t")));
    }
    assertTrue(store.awaitLoadEntered(10_000), "the load reached the store");
    for (Future<Long> f : waiting) {
      assertFalse(f.isDone(), "no ID can exist before the blocked load returns");
    }
    store.release();
    Set<Long> got = new HashSet<>();
    for (Future<Long> f : waiting) {
      got.add(f.get(10, TimeUnit.SECONDS));
    }
    assertEquals(Set.of(1L, 2L, 3L, 4L), got, "every waiter got its own ID of the one segment");
    assertEquals(1, store.attempts(), "the waiters shared one load");
  }

  @Test
  void nextId_loadOutlastsTimeout_waitTimeoutThenSameLoadServes() {
    memory.createTag("slow", 1, 100, null);
    store.blockLoads();
    SegmentWaitTimeoutException e =
        assertThrows(
            SegmentWaitTimeoutException.class,
            () -> Blocking.nextId(allocator, "slow", TimeUnit.MILLISECONDS.toNanos(50)));
    assertTrue(e.getMessage().contains("slow") && e.getMessage().contains("50 ms"), e.getMessage());
    store.release();
    assertEquals(1, nextId("slow"), "the load still in flight serves the next caller");
    assertEquals(1, store.attempts(), "no second load was started");
  }

  @Test
  void nextId_noTimeLeft_stillStartsTheLoad() throws Exception {
    memory.createTag("t", 1, 100, null);
    store.blockLoads();
    assertThrows(SegmentWaitTimeoutException.class, () -> Blocking.nextId(allocator, "t", 0));
    assertTrue(
        store.awaitLoadEntered(10_000), "the load started although the caller could not wait");
    store.release();
    assertEquals(1, nextId("t"));
  }

  @Test
  void initCache_twice_loadsOnceAndIssuesNothing() {
    memory.createTag("t", 1, 100, null);
    Blocking.initCache(allocator, "t", WAIT);
    Blocking.initCache(allocator, "t", WAIT);
    assertEquals(1, store.attempts(), "one load");
    assertEquals(new TagSnapshot.SegmentView(1, 101, 1), snapshot("t").current(), "nothing issued");
  }

  // ---- failures and back-off ----

  @Test
  void nextId_storeFailing_failsFastWhileBackingOffThenHeals() {
    memory.createTag("t", 1, 10, null);
    store.failLoads();
    StoreUnavailableException first =
        assertThrows(StoreUnavailableException.class, () -> nextId("t"));
    assertTrue(first.getMessage().contains("database"), first.getMessage());
    assertEquals(1, store.attempts());

    StoreUnavailableException fast =
        assertThrows(StoreUnavailableException.class, () -> nextId("t"));
    assertTrue(
        fast.getMessage().contains("database")
            && fast.getMessage().contains("biz_tag t")
            && fast.getMessage().contains("next database attempt in 100 ms"),
        fast.getMessage());
    ticker.advance(Duration.ofMillis(99));
    assertThrows(StoreUnavailableException.class, () -> nextId("t"));
    assertEquals(1, store.attempts(), "no load while backing off");

    ticker.advance(Duration.ofMillis(1));
    assertThrows(StoreUnavailableException.class, () -> nextId("t"));
    assertEquals(2, store.attempts(), "retried once the back-off passed");
    ticker.advance(Duration.ofMillis(100));
    assertThrows(StoreUnavailableException.class, () -> nextId("t"));
    assertEquals(2, store.attempts(), "the second back-off is twice as long");
    ticker.advance(Duration.ofMillis(100));
    assertThrows(StoreUnavailableException.class, () -> nextId("t"));
    assertEquals(3, store.attempts());

    for (int i = 0; i < 5; i++) {
      ticker.advance(MAX_BACKOFF);
      assertThrows(StoreUnavailableException.class, () -> nextId("t"));
    }
    assertEquals(8, store.attempts());
    StoreUnavailableException capped =
        assertThrows(StoreUnavailableException.class, () -> nextId("t"));
    assertTrue(
        capped.getMessage().contains("next database attempt in 1000 ms"),
        "back-off capped at the maximum: " + capped.getMessage());

    store.heal();
    ticker.advance(MAX_BACKOFF);
    assertEquals(1, nextId("t"), "heals without a restart; failed loads took nothing");
  }

  @Test
  void preload_fails_retriedInBackgroundAfterBackoff() throws Exception {
    TagBuffer b = tagJustBelowPreload("t");
    store.failLoads();
    assertEquals(11, nextId("t"));
    awaitLoad(b);
    assertEquals(2, store.attempts(), "the preload ran and failed");
    take("t", 9);
    assertNull(b.pendingLoad(), "no retry while backing off");
    assertEquals(2, store.attempts());

    store.heal();
    store.blockLoads();
    ticker.advance(MIN_BACKOFF);
    assertEquals(21, nextId("t"));
    assertNotNull(b.pendingLoad(), "the first request after the back-off retries the preload");
    assertTrue(store.awaitLoadEntered(10_000), "the retry reached the store");
    store.release();
    awaitLoad(b);
    assertEquals(
        new TagSnapshot.SegmentView(101, 201, 101),
        snapshot("t").next(),
        "the next segment is ready before the current one runs out");
  }

  @Test
  void nextId_preloadFailedAndCurrentRunsDry_servesBufferThenFailsFast() throws Exception {
    memory.createTag("t", 1, 20, null);
    assertEquals(1, nextId("t"));
    store.failLoads();
    take("t", 2);
    awaitLoad(buffer("t"));
    assertEquals(2, store.attempts(), "the preload at ID 3 failed");
    take("t", 17);
    StoreUnavailableException e =
        assertThrows(
            StoreUnavailableException.class,
            () -> nextId("t"),
            "IDs 4..20 were still served; then the tag is dry");
    assertTrue(
        e.getMessage().contains("next database attempt in"), "failed fast: " + e.getMessage());
    assertEquals(2, store.attempts(), "the dry tag waits out the back-off");
  }

  @Test
  void nextId_nearLongMax_issuesUpToMaxMinusOneThenOverflow() {
    memory.createTag("edge", Long.MAX_VALUE - 20, 10, null);
    List<Long> got = new ArrayList<>();
    IdOverflowException e =
        assertThrows(
            IdOverflowException.class,
            () -> {
              for (int i = 0; i < 100; i++) {
                got.add(nextId("edge"));
              }
            });
    assertTrue(e.getMessage().contains("edge"), e.getMessage());
    assertEquals(20, got.size(), "two segments of 10: " + got);
    for (int i = 0; i < got.size(); i++) {
      assertEquals(Long.MAX_VALUE - 20 + i, got.get(i), "ID " + i);
    }
    assertThrows(
        IdOverflowException.class,
        () -> Blocking.nextIds(allocator, "edge", 5, WAIT),
        "still out of range, nothing wrapped");
  }

  // ---- lock striping ----

  @Test
  void nextId_firstLoadOfTagBlocked_otherTagsOnSameStripeStillServed() throws Exception {
    Striped<Lock> probe = Striped.lock(TagTable.STRIPES);
    List<String> sameStripe = new ArrayList<>();
    for (int i = 0; sameStripe.size() < 2; i++) {
      if (probe.get("tag" + i) == probe.get("a")) {
        sameStripe.add("tag" + i);
      }
    }
    String cachedTag = sameStripe.get(0);
    String coldTag = sameStripe.get(1);
    SegmentAllocator striped = allocator(store, EngineConfig.DEFAULTS.withLoaderThreads(2));
    for (String t : List.of("a", cachedTag, coldTag)) {
      memory.createTag(t, 1, 100, null);
    }
    assertEquals(1, Blocking.nextId(striped, cachedTag, WAIT));

    store.blockLoadsOf("a");
    Future<Long> first = callers.submit(() -> Blocking.nextId(striped, "a", WAIT));
    assertTrue(store.awaitLoadEntered(10_000), "the load of a is in the store");
    assertEquals(
        2,
        callers.submit(() -> Blocking.nextId(striped, cachedTag, WAIT)).get(10, TimeUnit.SECONDS),
        "a cached tag on a's stripe is served while a loads");
    assertEquals(
        1,
        callers.submit(() -> Blocking.nextId(striped, coldTag, WAIT)).get(10, TimeUnit.SECONDS),
        "the first load of another tag on a's stripe completes while a loads");
    assertFalse(first.isDone(), "a is still loading");
    store.release();
    assertEquals(1, first.get(10, TimeUnit.SECONDS));
  }

  // ---- dynamic step ----

  @Test
  void dynamicStep_byHowLongSegmentsLast_doublesKeepsHalvesAndFloors() {
    memory.createTag("t", 1, 100, null);
    nextId("t");
    nextLoadAfter("t", Duration.ofMinutes(10));
    nextLoadAfter("t", Duration.ofMinutes(10));
    nextLoadAfter("t", Duration.ofMinutes(20));
    nextLoadAfter("t", Duration.ofMinutes(5));
    nextLoadAfter("t", Duration.ofMinutes(40));
    nextLoadAfter("t", Duration.ofMinutes(45));
    nextLoadAfter("t", Duration.ofMinutes(45));
    assertEquals(
        List.of(0, 0, 200, 200, 400, 200, 100, 100),
        store.requestedSteps(),
        "two loads at the table step, then <15m doubles, 15-30m keeps, >=30m halves to the floor");
    assertEquals(
        List.of(100, 100, 200, 200, 400, 200, 100, 100),
        store.served().stream().map(SegmentRange::step).toList(),
        "segment sizes");
  }

  @Test
  void dynamicStep_grownStepWouldPassLongMax_fallsBackToTableStep() {
    memory.createTag("top", Long.MAX_VALUE - 350, 100, null);
    List<Long> got = new ArrayList<>();
    assertThrows(
        IdOverflowException.class,
        () -> {
          for (int i = 0; i < 1_000; i++) {
            got.add(nextId("top"));
          }
        });
    assertEquals(300, got.size(), "three segments of the table step fit below 2^63-1");
    for (int i = 0; i < got.size(); i++) {
      assertEquals(Long.MAX_VALUE - 350 + i, got.get(i), "ID " + i);
    }
    assertTrue(
        store.requestedSteps().contains(200),
        "the doubled step was tried first: " + store.requestedSteps());
    assertEquals(
        List.of(100, 100, 100),
        store.served().stream().map(SegmentRange::step).toList(),
        "every segment served at the table step");
  }

  @Test
  void dynamicStep_fastSegments_cappedAtMaxStep() {
    allocator = allocator(store, EngineConfig.DEFAULTS.withMaxStep(300));
    memory.createTag("t", 1, 100, null);
    nextId("t");
    for (int i = 0; i < 4; i++) {
      nextLoadAfter("t", Duration.ofSeconds(1));
    }
    assertEquals(List.of(0, 0, 200, 300, 300), store.requestedSteps(), "doubles up to the cap");
  }

  @Test
  void updateStep_noLoadInFlight_nextLoadUsesNewStepThenDynamicResumes() {
    memory.createTag("t", 1, 100, null);
    nextId("t");
    nextLoadAfter("t", Duration.ofMinutes(1));
    nextLoadAfter("t", Duration.ofMinutes(1));
    assertEquals(200, snapshot("t").current().end() - snapshot("t").current().start());
    memory.updateStep("t", 30);
    allocator.onStepUpdated("t", 30);
    assertEquals(30, snapshot("t").effectiveStep(), "shown as the next load's step");
    nextLoadAfter("t", Duration.ofMinutes(1));
    nextLoadAfter("t", Duration.ofMinutes(1));
    assertEquals(
        List.of(0, 0, 200, 0, 60),
        store.requestedSteps(),
        "the load right after UpdateStep takes the new row step, then doubling resumes from it");
    assertEquals(30, store.served().get(3).step(), "the new step was used");
  }

  @Test
  void updateStep_whileLoadInFlight_loadAfterItUsesNewStep() throws Exception {
    memory.createTag("t", 1, 100, null);
    nextId("t");
    nextLoadAfter("t", Duration.ofMinutes(1));
    nextLoadAfter("t", Duration.ofMinutes(1));
    TagSnapshot s = snapshot("t");
    assertEquals(new TagSnapshot.SegmentView(201, 401, 202), s.current(), "third segment: " + s);

    ticker.advance(Duration.ofMinutes(1));
    store.blockLoads();
    take("t", 221 - 202 + 1);
    TagBuffer b = buffer("t");
    assertNotNull(b.pendingLoad(), "preload of the fourth segment started");
    assertTrue(store.awaitLoadEntered(10_000), "and is in the store");
    memory.updateStep("t", 30);
    allocator.onStepUpdated("t", 30);
    store.release();
    awaitLoad(b);
    take("t", 401 - 222);
    assertEquals(401, nextId("t"), "the in-flight load's segment is used");

    nextLoadAfter("t", Duration.ofMinutes(1));
    nextLoadAfter("t", Duration.ofMinutes(1));
    assertEquals(
        List.of(0, 0, 200, 400, 0, 60),
        store.requestedSteps(),
        "the load in flight kept its step; the next one took the new row step");
    assertEquals(30, store.served().get(4).step());
  }

  // ---- status and eviction ----

  @Test
  void snapshot_afterPreload_showsSegmentsEffectiveStepAndLastAccess() throws Exception {
    memory.createTag("t", 1, 100, null);
    assertTrue(allocator.snapshot("t").isEmpty(), "nothing held before first use");
    nextId("t");
    ticker.advance(Duration.ofMinutes(3));
    take("t", 10);
    awaitLoad(buffer("t"));
    long lastRequest = ticker.read();
    ticker.advance(Duration.ofMinutes(5));
    TagSnapshot s = snapshot("t");
    assertEquals(new TagSnapshot.SegmentView(1, 101, 12), s.current());
    assertEquals(new TagSnapshot.SegmentView(101, 201, 101), s.next());
    assertEquals(
        200,
        s.effectiveStep(),
        "the third load doubles: the second segment has lasted 5 minutes so far");
    assertEquals(
        lastRequest, s.lastAccessNanos(), "last access is the last request, not the snapshot");
  }

  @Test
  void evict_whileLoadInFlight_loadDiscardedAndNewBufferContinuesAbove() throws Exception {
    TagBuffer old = tagJustBelowPreload("t");
    store.blockLoads();
    assertEquals(11, nextId("t"));
    assertTrue(store.awaitLoadEntered(10_000), "preload in the store");
    assertTrue(allocator.evict(old), "evicted");
    assertTrue(old.isClosed(), "closed");
    assertFalse(allocator.evict(old), "a second eviction finds nothing");
    store.release();
    awaitLoad(old);
    assertEquals(0, old.queued(), "the segment that arrived after eviction is not installed");
    assertEquals(201, nextId("t"), "a fresh buffer loads a fresh segment: [101, 201) is a gap");
    assertTrue(
        allocator.cached("t").isPresent() && allocator.cached("t").get() != old, "new buffer");
  }

  @Test
  void onCached_newBuffer_listenerCalledOncePerBuffer() {
    List<TagBuffer> seen = new ArrayList<>();
    allocator =
        allocator(store, EngineConfig.DEFAULTS, EngineListeners.NONE.withOnCached(seen::add));
    memory.createTag("t", 1, 100, null);
    ids("t", 3);
    assertEquals(1, seen.size(), "one buffer");
    assertSame(buffer("t"), seen.get(0));
    allocator.evict(seen.get(0));
    nextId("t");
    assertEquals(2, seen.size(), "a new buffer after eviction");
  }
}
