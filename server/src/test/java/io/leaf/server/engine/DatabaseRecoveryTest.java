package io.leaf.server.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.store.ForwardingSegmentStore;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.store.SegmentRange;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.StoreUnavailableException;
import io.leaf.server.testing.ControllableStore;
import io.leaf.server.testing.EngineThreadsFixture;
import io.leaf.server.testing.FakeTicker;
import io.leaf.server.testing.ManualTimer;
import io.leaf.server.testing.Poll;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the server's database check tells the engine: while it sees the database down, loads fail at
 * once; once it sees the database answer, every tag backing off loads at once, however long the
 * outage grew its back-off.
 */
@Timeout(60)
class DatabaseRecoveryTest {

  private static final long WAIT = TimeUnit.SECONDS.toNanos(10);

  private final FakeTicker ticker = new FakeTicker();
  private final MemorySegmentStore memory = new MemorySegmentStore();
  private final ControllableStore store = new ControllableStore(memory);
  private final EngineThreadsFixture threads =
      new EngineThreadsFixture(EngineConfig.DEFAULTS, new ManualTimer(ticker));
  private final SegmentAllocator allocator =
      new SegmentAllocator(store, ticker, EngineConfig.DEFAULTS, threads.threads());

  @AfterEach
  void tearDown() {
    store.release();
    allocator.close();
    threads.close();
  }

  private CompletableFuture<Long> next(String tag) {
    return allocator.nextId(tag, allocator.deadline(WAIT, false));
  }

  private static Throwable failure(CompletableFuture<?> f) {
    return assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS)).getCause();
  }

  @Test
  void databaseAnswered_afterLongOutage_dryTagIssuesAtOnce() throws Exception {
    memory.createTag("t", 1, 20, null);
    assertEquals(1, next("t").get(10, TimeUnit.SECONDS));
    store.failLoads();
    // A 45 s outage: the tag runs dry, and every retry after its back-off fails again.
    long lastIssued = 1;
    for (int second = 0; second < 45; second++) {
      CompletableFuture<Long> f = next("t");
      try {
        lastIssued = f.get(10, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        assertInstanceOf(StoreUnavailableException.class, e.getCause());
      }
      ticker.advance(Duration.ofSeconds(1));
    }
    assertTrue(lastIssued < 40, "the tag ran dry during the outage: " + lastIssued);
    store.heal();
    assertInstanceOf(
        StoreUnavailableException.class,
        failure(next("t")),
        "without the check, the tag still backs off");

    allocator.databaseAnswered(); // unchanged: nothing was known down
    assertInstanceOf(StoreUnavailableException.class, failure(next("t")));
    allocator.databaseDown("connection refused");
    allocator.databaseAnswered();
    long id = next("t").get(10, TimeUnit.SECONDS);
    assertTrue(id > lastIssued, "issuing resumes at once when the database answers: " + id);
  }

  @Test
  void databaseAnswered_aLoadOfTheOutageFailsJustAfter_beginsNoBackoff() throws Exception {
    memory.createTag("dry", 1, 20, null);
    AtomicBoolean outage = new AtomicBoolean(true);
    AtomicReference<SegmentAllocator> engine = new AtomicReference<>();
    // A load begun in the outage fails just after the server's check saw the database answer.
    SegmentStore lateFailure =
        new ForwardingSegmentStore(memory) {
          @Override
          public SegmentRange nextSegment(String bizTag, int step) {
            if (outage.getAndSet(false)) {
              engine.get().databaseAnswered();
              throw new StoreUnavailableException("database unavailable: connection reset", null);
            }
            return super.nextSegment(bizTag, step);
          }
        };
    EngineThreadsFixture own =
        new EngineThreadsFixture(EngineConfig.DEFAULTS, new ManualTimer(ticker));
    engine.set(new SegmentAllocator(lateFailure, ticker, EngineConfig.DEFAULTS, own.threads()));
    try {
      engine.get().databaseDown("connection refused");
      CompletableFuture<Long> during =
          engine.get().nextId("dry", engine.get().deadline(WAIT, false));
      assertInstanceOf(StoreUnavailableException.class, failure(during), "known down");
      // The engine's clock stands still: only the end of the back-off lets the tag load again.
      // A failed call (ExecutionException) is retried; the last one is thrown after 10 s.
      long first =
          Poll.retry(
              () ->
                  engine
                      .get()
                      .nextId("dry", engine.get().deadline(WAIT, false))
                      .get(10, TimeUnit.SECONDS),
              e -> e instanceof ExecutionException,
              Duration.ofSeconds(10));
      assertEquals(1, first, "the tag loads once the database answers, without a back-off");
    } finally {
      engine.get().close();
      own.close();
    }
  }

  @Test
  void databaseDown_firstCallOnUnloadedTag_failsAtOnceWhileTheLoadProbes() throws Exception {
    memory.createTag("dry", 1, 20, null);
    store.blockLoads(); // a load that would wait out a connection timeout
    allocator.databaseDown("connection refused");
    CompletableFuture<Long> first = next("dry");
    assertTrue(first.isDone(), "answered at once, not after the load");
    Throwable t = failure(first);
    assertInstanceOf(StoreUnavailableException.class, t);
    assertTrue(t.getMessage().contains("database check fails: connection refused"), t.getMessage());
    assertTrue(store.awaitLoadEntered(10_000), "the load still runs, as a probe");
    store.release();

    allocator.databaseAnswered();
    assertEquals(1, next("dry").get(10, TimeUnit.SECONDS), "the tag loads once it answers");
  }

  @Test
  void databaseDown_reserveBeyondBuffer_failsAtOnceAndKeepsBuffer() throws Exception {
    memory.createTag("r", 1, 100, null);
    assertEquals(1, next("r").get(10, TimeUnit.SECONDS));
    allocator.databaseDown("connection refused");
    CompletableFuture<IdRanges> r =
        allocator.reserve(
            "r",
            500,
            allocator.deadline(WAIT, true),
            task -> {
              throw new AssertionError("no dedicated write while the database is known down");
            });
    assertInstanceOf(StoreUnavailableException.class, failure(r));
    assertEquals(2, next("r").get(10, TimeUnit.SECONDS), "the buffer is whole");
  }
}
