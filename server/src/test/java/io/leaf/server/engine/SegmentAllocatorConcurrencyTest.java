package io.leaf.server.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.store.SegmentRange;
import io.leaf.server.testing.Blocking;
import io.leaf.server.testing.ControllableStore;
import io.leaf.server.testing.EngineThreadsFixture;
import io.leaf.server.testing.FakeTicker;
import io.leaf.server.testing.IdChecks;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Many threads on one tag with a small step, so segments switch and load all the time: every ID is
 * issued once, comes from a segment the store handed out, and each thread sees its IDs rise.
 */
class SegmentAllocatorConcurrencyTest {

  private static final int THREADS = 16;
  private static final int PER_THREAD = 100_000;
  private static final long WAIT = TimeUnit.SECONDS.toNanos(60);

  private final MemorySegmentStore memory = new MemorySegmentStore();
  private final ControllableStore store = new ControllableStore(memory);
  private final ExecutorService pool = Executors.newFixedThreadPool(THREADS);
  private final EngineThreadsFixture threads = new EngineThreadsFixture(EngineConfig.DEFAULTS);
  private SegmentAllocator allocator;

  @AfterEach
  void tearDown() {
    pool.shutdownNow();
    if (allocator != null) {
      allocator.close();
    }
    threads.close();
  }

  /** One thread's work: fills {@code out} with IDs in the order it got them. */
  private interface Worker {
    void run(int thread, long[] out);
  }

  private long[][] runThreads(Worker worker) throws Exception {
    CyclicBarrier start = new CyclicBarrier(THREADS);
    List<Future<long[]>> futures = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      int thread = t;
      futures.add(
          pool.submit(
              () -> {
                long[] out = new long[PER_THREAD];
                start.await();
                worker.run(thread, out);
                return out;
              }));
    }
    long[][] all = new long[THREADS][];
    for (int t = 0; t < THREADS; t++) {
      all[t] = futures.get(t).get(5, TimeUnit.MINUTES);
    }
    return all;
  }

  /** Each thread strictly increasing; all IDs distinct; every ID inside a served segment. */
  private void assertUniqueIncreasingAndServed(long[][] perThread) {
    for (int t = 0; t < perThread.length; t++) {
      IdChecks.assertIncreasing(perThread[t], "thread " + t);
    }
    long[] all = IdChecks.assertAllDistinct(perThread);
    List<SegmentRange> served = new ArrayList<>(store.served());
    served.sort(Comparator.comparingLong(SegmentRange::start));
    int r = 0;
    for (long id : all) {
      while (r < served.size() && served.get(r).end() <= id) {
        r++;
      }
      if (r == served.size() || id < served.get(r).start()) {
        throw new AssertionError("ID " + id + " is in no segment the store handed out");
      }
    }
  }

  @Test
  void nextId_16ThreadsOneTagStep100_uniqueIncreasingAndFromServedSegments() throws Exception {
    // A cap equal to the step keeps every segment at 100 IDs: the most switches and loads.
    allocator =
        new SegmentAllocator(
            store, new FakeTicker(), EngineConfig.DEFAULTS.withMaxStep(100), threads.threads());
    memory.createTag("hot", 1, 100, null);
    long[][] ids =
        runThreads(
            (thread, out) -> {
              for (int i = 0; i < out.length; i++) {
                out[i] = Blocking.nextId(allocator, "hot", WAIT);
              }
            });
    assertUniqueIncreasingAndServed(ids);
    int loads = store.loads();
    System.out.println(
        "[leaf-tests] 16 threads x 100000 NextId, step 100: " + loads + " segment loads");
    assertTrue(
        loads >= THREADS * PER_THREAD / 100,
        "1.6 million IDs need at least 16000 segments of 100: " + loads);
  }

  @Test
  void nextIdAndBatches_16ThreadsOneTag_uniqueIncreasingAndFromServedSegments() throws Exception {
    // The step doubles from 100 up to 1000, so batches of up to 1500 span several segments.
    allocator =
        new SegmentAllocator(
            store, new FakeTicker(), EngineConfig.DEFAULTS.withMaxStep(1_000), threads.threads());
    memory.createTag("mixed", 1, 100, null);
    long[][] ids =
        runThreads(
            (thread, out) -> {
              SplittableRandom random = new SplittableRandom(thread);
              int n = 0;
              while (n < out.length) {
                if (random.nextInt(4) == 0) {
                  out[n++] = Blocking.nextId(allocator, "mixed", WAIT);
                  continue;
                }
                int count = Math.min(out.length - n, 1 + random.nextInt(1_500));
                IdRanges batch = Blocking.nextIds(allocator, "mixed", count, WAIT);
                assertEquals(count, batch.size(), "a batch has exactly the IDs asked for");
                for (int r = 0; r < batch.rangeCount(); r++) {
                  for (long id = batch.from(r); id < batch.to(r); id++) {
                    out[n++] = id;
                  }
                }
              }
            });
    assertUniqueIncreasingAndServed(ids);
    System.out.println(
        "[leaf-tests] 16 threads x 100000 mixed NextId/NextIdBatch: "
            + store.loads()
            + " segment loads");
  }
}
