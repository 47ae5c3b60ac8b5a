package io.leaf.server.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.store.StoreUnavailableException;
import io.leaf.server.store.TagNotFoundException;
import io.leaf.server.testing.Blocking;
import io.leaf.server.testing.ControllableStore;
import io.leaf.server.testing.EngineThreadsFixture;
import io.leaf.server.testing.FakeTicker;
import io.leaf.server.testing.IdChecks;
import io.leaf.server.testing.ManualTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Calls that find no ID buffered, on a fake clock and a manual deadline timer: they wait on the
 * tag's pending load without a thread, are answered by its completion, time out by the timer, leave
 * on a cancel, and are bounded; unknown tags are remembered and kept to their own budget.
 */
// A handler that parked a thread would hang here instead of failing: bound every test.
@Timeout(60)
@Isolated
class SegmentWaitingTest {

  private static final long WAIT = TimeUnit.SECONDS.toNanos(10);

  private final FakeTicker ticker = new FakeTicker();
  private final ManualTimer timer = new ManualTimer(ticker);
  private final MemorySegmentStore memory = new MemorySegmentStore();
  private final ControllableStore store = new ControllableStore(memory);
  private final List<SegmentAllocator> allocators = new ArrayList<>();
  private final List<EngineThreadsFixture> threads = new ArrayList<>();
  private SegmentAllocator allocator = allocator(EngineConfig.DEFAULTS);

  @AfterEach
  void tearDown() {
    store.release();
    allocators.forEach(SegmentAllocator::close);
    threads.forEach(EngineThreadsFixture::close);
  }

  private SegmentAllocator allocator(EngineConfig config) {
    return allocator(config, EngineListeners.NONE);
  }

  private SegmentAllocator allocator(EngineConfig config, EngineListeners listeners) {
    EngineThreadsFixture t = new EngineThreadsFixture(config, timer);
    threads.add(t);
    SegmentAllocator a = new SegmentAllocator(store, ticker, config, t.threads(), listeners);
    allocators.add(a);
    return a;
  }

  private CompletableFuture<Long> nextId(String tag) {
    return allocator.nextId(tag, allocator.deadline(WAIT, false));
  }

  private static Throwable failureOf(CompletableFuture<?> f) {
    assertTrue(f.isDone(), "finished");
    ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(0, TimeUnit.SECONDS));
    return e.getCause();
  }

  // ---- answered from the load ----

  @Test
  void nextId_nothingBuffered_answeredByLoadCompletionWithoutThread() throws Exception {
    memory.createTag("t", 1, 100, null);
    store.blockLoads();
    List<CompletableFuture<Long>> waiting = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      waiting.add(nextId("t"));
    }
    assertTrue(store.awaitLoadEntered(10_000), "the load is in the store");
    assertEquals(50, allocator.waitingCalls(), "every call waits, and this thread was never held");
    assertEquals(50, timer.pending(), "one deadline task each");
    assertTrue(waiting.stream().noneMatch(CompletableFuture::isDone), "no ID before the load");

    store.release();
    long[] ids = new long[50];
    for (int i = 0; i < 50; i++) {
      ids[i] = waiting.get(i).get(10, TimeUnit.SECONDS);
    }
    long[] sorted = IdChecks.assertAllDistinct(ids);
    assertTrue(sorted[0] == 1 && sorted[49] == 50, "all from the one shared load [1, 101)");
    assertTrue(store.awaitLoadEntered(10_000), "the preload their 10% started");
    assertEquals(2, store.attempts(), "the shared load and the preload, nothing more");
    assertEquals(0, allocator.waitingCalls(), "every slot freed");
    assertEquals(0, timer.pending(), "every deadline task cancelled");
  }

  @Test
  void nextId_moreWaitersThanIdsInSegment_restWaitOnNextLoadAndAllDistinct() throws Exception {
    memory.createTag("small", 1, 10, null);
    store.blockLoads();
    List<CompletableFuture<Long>> waiting = new ArrayList<>();
    for (int i = 0; i < 95; i++) {
      waiting.add(nextId("small"));
    }
    store.release();
    long[] ids = new long[waiting.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = waiting.get(i).get(10, TimeUnit.SECONDS);
    }
    for (long id : IdChecks.assertAllDistinct(ids)) {
      assertTrue(
          store.served().stream().anyMatch(r -> r.start() <= id && id < r.end()),
          "ID " + id + " from a segment the store served: " + store.served());
    }
    assertTrue(store.loads() >= 4, "95 IDs needed several loads of small segments");
    assertEquals(0, allocator.waitingCalls());
  }

  // ---- deadlines ----

  @Test
  void nextId_callersDeadlinePasses_timerFailsItAsCallersDeadline() {
    memory.createTag("slow", 1, 100, null);
    store.blockLoads();
    CompletableFuture<Long> f =
        allocator.nextId("slow", allocator.deadline(TimeUnit.MILLISECONDS.toNanos(300), true));
    ticker.advance(Duration.ofMillis(299));
    assertEquals(0, timer.fireDue(), "not due yet");
    assertFalse(f.isDone());
    ticker.advance(Duration.ofMillis(1));
    assertEquals(1, timer.fireDue());
    SegmentWaitTimeoutException e =
        assertInstanceOf(SegmentWaitTimeoutException.class, failureOf(f));
    assertTrue(e.callersDeadline(), "the caller's deadline (DEADLINE_EXCEEDED)");
    assertTrue(
        e.getMessage().contains("slow") && e.getMessage().contains("300 ms"), e.getMessage());
    assertEquals(0, allocator.waitingCalls(), "its slot is free");

    store.release();
    assertEquals(1, Blocking.nextId(allocator, "slow", WAIT), "the load still serves later calls");
  }

  @Test
  void nextId_serverCapPasses_timerFailsItAsServerCap() {
    memory.createTag("slow", 1, 100, null);
    store.blockLoads();
    CompletableFuture<Long> f =
        allocator.nextId("slow", allocator.deadline(TimeUnit.SECONDS.toNanos(5), false));
    ticker.advance(Duration.ofSeconds(5));
    timer.fireDue();
    SegmentWaitTimeoutException e =
        assertInstanceOf(SegmentWaitTimeoutException.class, failureOf(f));
    assertFalse(e.callersDeadline(), "the server's --max-wait cap (UNAVAILABLE)");
  }

  // ---- the bound and cancellation ----

  @Test
  void nextId_maxWaitingReached_limitExceededNamingFlagAndCancelFreesSlot() throws Exception {
    allocator = allocator(EngineConfig.DEFAULTS.withMaxWaiting(2));
    memory.createTag("t", 1, 100, null);
    store.blockLoads();
    CompletableFuture<Long> first = nextId("t");
    CompletableFuture<Long> second = nextId("t");
    LimitExceededException e =
        assertInstanceOf(LimitExceededException.class, failureOf(nextId("t")));
    assertEquals("too many calls waiting for segments (limit 2, --max-waiting)", e.getMessage());

    assertTrue(first.cancel(false), "cancelled while waiting");
    assertEquals(1, allocator.waitingCalls(), "the cancel freed its slot");
    assertEquals(1, timer.pending(), "and its deadline task");
    CompletableFuture<Long> third = nextId("t");
    assertFalse(third.isDone(), "the freed slot is taken by a new call");

    store.release();
    assertEquals(
        List.of(1L, 2L),
        List.of(second.get(10, TimeUnit.SECONDS), third.get(10, TimeUnit.SECONDS)).stream()
            .sorted()
            .toList(),
        "the cancelled call took no ID");
  }

  // ---- fail fast while the database is known down ----

  @Test
  void nextId_dryTagBackingOff_failsAtOnceWithoutWaiting() {
    memory.createTag("t", 1, 10, null);
    store.failLoads();
    assertThrows(StoreUnavailableException.class, () -> Blocking.nextId(allocator, "t", WAIT));
    CompletableFuture<Long> fast = nextId("t");
    assertTrue(fast.isDone(), "answered at once during the back-off");
    assertInstanceOf(StoreUnavailableException.class, failureOf(fast));
    assertEquals(0, allocator.waitingCalls(), "nothing waits on a database known to be down");
    assertEquals(1, store.attempts(), "no load during the back-off");
  }

  @Test
  void nextId_loadLostItsWriteConflicts_nextCallLoadsAgainWithoutBackoff() throws Exception {
    memory.createTag("t", 1, 10, null);
    store.failLoadsWith(
        new io.leaf.server.store.WriteConflictException(
            "write conflict on leaf_alloc persisted after 12 attempts", null));
    assertThrows(StoreUnavailableException.class, () -> Blocking.nextId(allocator, "t", WAIT));
    store.heal();
    // No ticker advance: an outage would make this call fail at once for the back-off.
    assertEquals(1, Blocking.nextId(allocator, "t", WAIT), "loaded again at once");
    assertEquals(2, store.attempts(), "a second load right after the conflict");
  }

  @Test
  void outage_fiftyTagsStartFailing_oneLogLinePerTenSecondsNamingTheOthers() {
    ch.qos.logback.classic.Logger loaderLog =
        (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(SegmentLoader.class);
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logged =
        new ch.qos.logback.core.read.ListAppender<>();
    logged.start();
    loaderLog.addAppender(logged);
    try {
      store.failLoads();
      for (int i = 0; i < 50; i++) {
        memory.createTag("t" + i, 1, 10, null);
        assertThrows(
            StoreUnavailableException.class,
            () -> Blocking.nextId(allocator, "t" + logged.list.size(), WAIT));
      }
      assertEquals(1, logged.list.size(), "one line for the first tag: " + logged.list);
      ticker.advance(java.time.Duration.ofSeconds(10));
      memory.createTag("late", 1, 10, null);
      assertThrows(StoreUnavailableException.class, () -> Blocking.nextId(allocator, "late", WAIT));
      assertEquals(2, logged.list.size(), "the next line once ten seconds passed");
      String second = logged.list.get(1).getFormattedMessage();
      assertTrue(
          second.contains("late") && second.contains("other tags' loads started failing"), second);
    } finally {
      loaderLog.detachAppender(logged);
    }
  }

  // ---- unknown tags ----

  @Test
  void nextId_missingTag_queriedOncePerTtl() {
    for (int i = 0; i < 5; i++) {
      TagNotFoundException e =
          assertThrows(TagNotFoundException.class, () -> Blocking.nextId(allocator, "ghost", WAIT));
      assertTrue(e.getMessage().contains("biz_tag not found: ghost"), e.getMessage());
    }
    assertEquals(1, store.attempts(), "one database round trip for five calls");
    assertEquals(0, allocator.cachedCount(), "a missing tag holds no buffer");

    ticker.advance(EngineConfig.DEFAULTS.missingTagTtl().minusMillis(1));
    assertThrows(TagNotFoundException.class, () -> Blocking.nextId(allocator, "ghost", WAIT));
    assertEquals(1, store.attempts(), "still remembered just before the TTL");
    ticker.advance(Duration.ofMillis(1));
    assertThrows(TagNotFoundException.class, () -> Blocking.nextId(allocator, "ghost", WAIT));
    assertEquals(2, store.attempts(), "asked again once the TTL passed");
  }

  @Test
  void tagCreated_missingTag_servedAtOnce() {
    assertThrows(TagNotFoundException.class, () -> Blocking.nextId(allocator, "late", WAIT));
    memory.createTag("late", 1, 10, null);
    assertThrows(
        TagNotFoundException.class,
        () -> Blocking.nextId(allocator, "late", WAIT),
        "created behind this server's back: remembered missing until the TTL");
    allocator.tagCreated("late");
    assertEquals(1, Blocking.nextId(allocator, "late", WAIT), "created through this server");
  }

  @Test
  void nextId_firstLoadBudgetFull_limitExceededNamingFlagAndNoBufferKept() throws Exception {
    allocator = allocator(EngineConfig.DEFAULTS.withFirstLoads(1, 1));
    for (String t : List.of("a", "b", "c")) {
      memory.createTag(t, 1, 10, null);
    }
    store.blockLoads();
    CompletableFuture<Long> a = nextId("a");
    assertTrue(store.awaitLoadEntered(10_000), "a's first load runs");
    CompletableFuture<Long> b = nextId("b");
    LimitExceededException e =
        assertInstanceOf(LimitExceededException.class, failureOf(nextId("c")));
    assertEquals(
        "too many first loads of tags this server holds no segment of are waiting for the"
            + " database (limit 1, --max-queued-first-loads)",
        e.getMessage());
    assertFalse(allocator.cached("c").isPresent(), "the refused tag holds no buffer");
    store.release();
    assertEquals(1, a.get(10, TimeUnit.SECONDS));
    assertEquals(1, b.get(10, TimeUnit.SECONDS));
    assertEquals(1, Blocking.nextId(allocator, "c", WAIT), "c loads once the budget has room");
  }

  @Test
  void nextId_tagEvictedAsIdle_reloadsWithServedTagsWhileFirstLoadBudgetFull() throws Exception {
    allocator = allocator(EngineConfig.DEFAULTS.withFirstLoads(1, 1));
    for (String t : List.of("served", "x", "y", "z")) {
      memory.createTag(t, 1, 10, null);
    }
    assertEquals(1, Blocking.nextId(allocator, "served", WAIT));
    assertTrue(allocator.evict(allocator.cached("served").orElseThrow()), "dropped as idle");
    store.blockLoadsOf("x");
    CompletableFuture<Long> x = nextId("x");
    assertTrue(store.awaitLoadEntered(10_000), "x's first load holds the one first-load thread");
    CompletableFuture<Long> y = nextId("y");
    assertInstanceOf(
        LimitExceededException.class, failureOf(nextId("z")), "first-load budget full");

    assertEquals(
        11,
        Blocking.nextId(allocator, "served", WAIT),
        "the evicted tag reloads on the served loaders, after the gap its dropped segment left");
    store.release();
    assertEquals(1, x.get(10, TimeUnit.SECONDS));
    assertEquals(1, y.get(10, TimeUnit.SECONDS));
  }

  @Test
  void nextId_servedLoaderQueueFull_limitExceededNamingFlagAndNoBufferKept() throws Exception {
    allocator = allocator(EngineConfig.DEFAULTS.withLoaderThreads(1).withLoaderQueue(1));
    for (String t : List.of("a", "b", "c")) {
      memory.createTag(t, 1, 10, null);
      assertEquals(1, Blocking.nextId(allocator, t, WAIT));
      assertTrue(allocator.evict(allocator.cached(t).orElseThrow()), t + " dropped as idle");
    }
    store.blockLoads();
    CompletableFuture<Long> a = nextId("a");
    assertTrue(store.awaitLoadEntered(10_000), "a's load runs");
    CompletableFuture<Long> b = nextId("b");
    LimitExceededException e =
        assertInstanceOf(LimitExceededException.class, failureOf(nextId("c")));
    assertEquals(
        "too many segment loads are waiting for the database (limit 1," + " --max-queued-loads)",
        e.getMessage());
    assertFalse(allocator.cached("c").isPresent(), "the refused tag holds no empty buffer");
    store.release();
    assertEquals(11, a.get(10, TimeUnit.SECONDS));
    assertEquals(11, b.get(10, TimeUnit.SECONDS));
  }

  @Test
  void freshUnknownTagFlood_liveTagLoadsUnaffected() throws Exception {
    List<TagBuffer> handedToSweeper = new CopyOnWriteArrayList<>();
    allocator =
        allocator(
            EngineConfig.DEFAULTS.withMaxStep(10).withFirstLoads(2, 20),
            EngineListeners.NONE.withOnCached(handedToSweeper::add));
    memory.createTag("live", 1, 10, null);
    assertEquals(1, Blocking.nextId(allocator, "live", WAIT));
    store.blockLoadsExcept("live");

    List<CompletableFuture<Long>> flood = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      flood.add(nextId("fresh-" + i));
    }
    long refused =
        flood.stream()
            .filter(f -> f.isDone() && failureOf(f) instanceof LimitExceededException)
            .count();
    assertEquals(
        1_000 - 22, refused, "beyond 2 running and 20 queued first loads, refused at once");

    int loadsBefore = store.loads();
    long[] live = new long[500];
    for (int i = 0; i < live.length; i++) {
      live[i] = Blocking.nextId(allocator, "live", WAIT);
    }
    IdChecks.assertIncreasing(live, "the live tag");
    assertTrue(
        store.loads() - loadsBefore >= 49,
        "the live tag loaded its 50 segments of 10 meanwhile: " + (store.loads() - loadsBefore));

    store.release();
    for (CompletableFuture<Long> f : flood) {
      Throwable failure = f.isDone() && f.isCompletedExceptionally() ? failureOf(f) : null;
      if (failure == null) {
        f.handle((v, t) -> t).get(10, TimeUnit.SECONDS);
        failure = failureOf(f);
      }
      assertTrue(
          failure instanceof TagNotFoundException || failure instanceof LimitExceededException,
          "an unknown tag is NOT_FOUND or RESOURCE_EXHAUSTED, never an outage: " + failure);
    }
    assertEquals(
        List.of("live"),
        handedToSweeper.stream().map(TagBuffer::bizTag).toList(),
        "no unknown tag reaches the idle sweeper");
    assertEquals(1, allocator.cachedCount(), "and none is held");
  }
}
