package io.leaf.server.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.store.ForwardingSegmentStore;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.store.SegmentRange;
import io.leaf.server.testing.EngineThreadsFixture;
import io.leaf.server.testing.FakeTicker;
import io.leaf.server.testing.IdChecks;
import io.leaf.server.testing.ManualTimer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The adaptive prefetch in the allocator, on a fake ticker and loads that take a set amount of
 * ticker time: each load waits in the test's loader until the test has moved the ticker past its
 * latency, then runs on the test's thread, so the allocator has installed it when the tick ends.
 */
class SegmentPrefetchTest {

  private static final String TAG = "prefetch";
  private static final int STEP = 100;
  private static final Duration LATENCY = Duration.ofMillis(5);
  private static final long WAIT = TimeUnit.SECONDS.toNanos(60);

  private final FakeTicker ticker = new FakeTicker();
  private final MemorySegmentStore memory = new MemorySegmentStore();
  private final TimedLoads loads = new TimedLoads();
  private final AtomicInteger finished = new AtomicInteger();
  private final AtomicInteger waitEvents = new AtomicInteger();
  private final AtomicInteger dropEvents = new AtomicInteger();
  private final EngineEvents events =
      new EngineEvents() {
        @Override
        public void segmentLoaded(boolean first, long nanos, RuntimeException failure) {
          finished.incrementAndGet();
        }

        @Override
        public void segmentWaited() {
          waitEvents.incrementAndGet();
        }

        @Override
        public void segmentDropped() {
          dropEvents.incrementAndGet();
        }
      };
  private SegmentAllocator allocator;

  @AfterEach
  void tearDown() {
    if (allocator != null) {
      allocator.close();
    }
  }

  /**
   * The loader of the tests on the fake ticker: a load started at ticker time t runs (reads the
   * store and is installed) on the test's thread at the first {@link #runDue} at t + {@link
   * #LATENCY} or later, in the order the loads started.
   */
  private final class TimedLoads implements Executor {
    private record Load(long atNanos, Runnable work) {}

    private final ArrayDeque<Load> started = new ArrayDeque<>();

    @Override
    public void execute(Runnable work) {
      started.add(new Load(ticker.read(), work));
    }

    void runDue() {
      while (!started.isEmpty() && ticker.read() - started.peek().atNanos() >= LATENCY.toNanos()) {
        started.poll().work().run();
      }
    }

    /** Loads started and not run yet. */
    int waiting() {
      return started.size();
    }
  }

  private void start() {
    memory.createTag(TAG, 1, STEP, "");
    // max step = the table step, so every segment holds 100 IDs however fast they go.
    allocator =
        new SegmentAllocator(
            memory,
            ticker,
            EngineConfig.DEFAULTS.withMaxStep(STEP),
            // No thread: the test's loader, and deadlines that never fire (the calls wait 60 s).
            new EngineThreads(loads, loads, new ManualTimer(ticker)),
            EngineListeners.NONE.withEvents(events));
  }

  /** Moves the ticker, then runs the loads that are due (each installed when this returns). */
  private void tick(Duration d) {
    ticker.advance(d);
    loads.runDue();
  }

  private long next(List<Long> ids, int[] waits) {
    CompletableFuture<Long> f = allocator.nextId(TAG, allocator.deadline(WAIT, false));
    if (!f.isDone()) {
      waits[0]++;
      while (!f.isDone()) {
        tick(Duration.ofMillis(1));
      }
    }
    long id = f.join();
    ids.add(id);
    return id;
  }

  private int ahead() {
    return allocator.tags().segmentsAhead(TAG);
  }

  @Test
  void nextId_steadyRateWithSlowLoads_noCallWaitsOnceRateIsKnown() {
    start();
    List<Long> ids = new ArrayList<>();
    int[] waits = {0};
    int[] waitsAfterWarmUp = {0};
    // 25 IDs per ms: a segment of 100 lasts 4 ms, less than one 5 ms load, so Leaf's single
    // preload at 10% (90 IDs left, 3.6 ms) would leave every segment dry.
    for (int i = 0; i < 5_000; i++) {
      tick(Duration.ofNanos(40_000));
      int before = waits[0];
      next(ids, waits);
      if (i >= 1_000 && waits[0] > before) {
        waitsAfterWarmUp[0]++;
      }
    }
    assertEquals(
        0,
        waitsAfterWarmUp[0],
        "calls that waited after the first 1,000 (of all: " + waits[0] + ")");
    assertEquals(waits[0], waitEvents.get(), "each wait reported once (leaf_segment_waits_total)");
    assertTrue(waits[0] > 0, "the first calls, before the rate was known, waited");
    IdChecks.assertIncreasing(ids.stream().mapToLong(Long::longValue).toArray(), "one caller");
    assertTrue(
        ahead() <= PrefetchPolicy.DEFAULT_MAX_AHEAD, "lookahead within its bound: " + ahead());
  }

  @Test
  void nextId_burst_lookaheadGrowsWithinBound() {
    start();
    List<Long> ids = new ArrayList<>();
    int[] waits = {0};
    int maxSlow = 0;
    // Slow: 1 ID per ms, a segment lasts 100 ms, one load ahead is plenty.
    for (int i = 0; i < 300; i++) {
      tick(Duration.ofMillis(1));
      next(ids, waits);
      maxSlow = Math.max(maxSlow, ahead());
    }
    assertEquals(1, maxSlow, "at a slow rate one segment ahead is enough");
    int maxBurst = 0;
    int maxLoading = 0;
    // Burst: 100 IDs per ms, a segment lasts 1 ms against 5 ms loads.
    for (int i = 0; i < 5_000; i++) {
      tick(Duration.ofNanos(10_000));
      next(ids, waits);
      maxBurst = Math.max(maxBurst, ahead());
      maxLoading = Math.max(maxLoading, loads.waiting());
    }
    assertTrue(maxBurst > 1, "the burst grows the lookahead past one segment: " + maxBurst);
    assertTrue(
        maxBurst <= PrefetchPolicy.DEFAULT_MAX_AHEAD,
        "never past the bound of " + PrefetchPolicy.DEFAULT_MAX_AHEAD + ": " + maxBurst);
    assertTrue(
        maxLoading <= PrefetchPolicy.DEFAULT_MAX_AHEAD,
        "loads side by side within the bound: " + maxLoading);
    long[] all = ids.stream().mapToLong(Long::longValue).toArray();
    IdChecks.assertIncreasing(all, "one caller through the burst");
  }

  @Test
  void nextId_idleAfterBurst_stopsLoading() {
    start();
    List<Long> ids = new ArrayList<>();
    int[] waits = {0};
    for (int i = 0; i < 2_000; i++) {
      tick(Duration.ofNanos(10_000));
      next(ids, waits);
    }
    // Idle: what was in flight lands, then nothing more starts however long the tag rests.
    for (int i = 0; i < 10; i++) {
      tick(LATENCY);
    }
    int started = loads.waiting() + finished.get();
    for (int i = 0; i < 100; i++) {
      tick(Duration.ofSeconds(10));
    }
    assertEquals(
        started,
        loads.waiting() + finished.get(),
        "an idle tag starts no load (loads begun before and after 1,000 s of rest)");
    assertTrue(ahead() <= PrefetchPolicy.DEFAULT_MAX_AHEAD, "what it holds is bounded: " + ahead());
  }

  @Tag("slow")
  @Test
  void nextId_concurrentCallersLoadsFinishingOutOfOrder_noIdRepeats() throws Exception {
    // Real time here: loads finish after a random 0-2 ms, so a later load often lands first.
    SplittableRandom random = new SplittableRandom(20);
    Queue<SegmentRange> handedOut = new ConcurrentLinkedQueue<>();
    ForwardingSegmentStore shuffling =
        new ForwardingSegmentStore(memory) {
          @Override
          public SegmentRange nextSegment(String bizTag, int step) {
            SegmentRange r = super.nextSegment(bizTag, step);
            handedOut.add(r);
            long pause;
            synchronized (random) {
              pause = random.nextLong(2_000_000);
            }
            LockSupport.parkNanos(pause);
            return r;
          }
        };
    memory.createTag(TAG, 1, 10, "");
    EngineThreadsFixture loaders = new EngineThreadsFixture(EngineConfig.DEFAULTS);
    allocator =
        new SegmentAllocator(
            shuffling,
            com.google.common.base.Ticker.systemTicker(),
            EngineConfig.DEFAULTS.withMaxStep(10),
            loaders.threads(),
            EngineListeners.NONE.withEvents(events));
    int threads = 8;
    int perThread = 20_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<long[]>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        futures.add(
            pool.submit(
                () -> {
                  long[] out = new long[perThread];
                  for (int i = 0; i < perThread; i++) {
                    out[i] =
                        allocator
                            .nextId(TAG, allocator.deadline(WAIT, false))
                            .get(60, TimeUnit.SECONDS);
                  }
                  return out;
                }));
      }
      long[][] all = new long[threads][];
      for (int t = 0; t < threads; t++) {
        all[t] = futures.get(t).get(5, TimeUnit.MINUTES);
        IdChecks.assertIncreasing(all[t], "thread " + t);
      }
      long[] issued = IdChecks.assertAllDistinct(all);
      assertEquals(threads * perThread, issued.length, "every ID issued once");
      // A dropped segment lies wholly below the segment in use at the end and gave no ID; so
      // does no other range the store handed out (used ones gave IDs, the rest lie above).
      long until = System.nanoTime() + WAIT;
      // segmentLoaded is reported after segmentDropped, once the stripe lock is released.
      while (allocator.tags().loadsInFlight(TAG) > 0 || finished.get() < handedOut.size()) {
        assertTrue(System.nanoTime() < until, "loads in flight ended within 60 s");
        LockSupport.parkNanos(100_000);
      }
      long inUse = allocator.snapshot(TAG).orElseThrow().current().start();
      Arrays.sort(issued);
      long unusedBelow =
          handedOut.stream()
              .filter(r -> r.end() <= inUse)
              .filter(
                  r -> {
                    int at = Arrays.binarySearch(issued, r.start());
                    int from = at >= 0 ? at : -at - 1;
                    return from == issued.length || issued[from] >= r.end();
                  })
              .count();
      assertEquals(
          unusedBelow,
          dropEvents.get(),
          "each segment that landed below the one in use reported once (leaf_segment_drops_total)");
      assertTrue(dropEvents.get() > 0, "loads finishing out of order dropped some segments");
    } finally {
      pool.shutdownNow();
      allocator.close();
      loaders.close();
    }
  }
}
