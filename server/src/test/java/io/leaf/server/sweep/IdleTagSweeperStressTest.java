package io.leaf.server.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.base.Ticker;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.engine.EngineListeners;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.testing.Blocking;
import io.leaf.server.testing.EngineThreadsFixture;
import io.leaf.server.testing.IdChecks;
import io.leaf.server.threads.ServerThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Real concurrency: requests on many tags while the real sweeper thread evicts them every few
 * milliseconds. Eviction may cost gaps, never a failed call or a repeated ID.
 */
@Tag("slow")
class IdleTagSweeperStressTest {

  private static final int THREADS = 8;
  private static final int TAGS = 1_000;
  private static final long RUN_NANOS = TimeUnit.SECONDS.toNanos(5);

  /** Bounds memory on a fast machine; the run ends at whichever limit comes first. */
  private static final int MAX_CALLS_PER_THREAD = 1_500_000;

  private static final int ID_BITS = 40;

  @Test
  @Timeout(120)
  void nextId_sweeperEvictingEveryFewMillis_noFailureNoDuplicateAndIdsRiseAfterReload()
      throws Exception {
    MemorySegmentStore store = new MemorySegmentStore();
    String[] tags = new String[TAGS];
    for (int i = 0; i < TAGS; i++) {
      tags[i] = "t" + i;
      store.createTag(tags[i], 1, 3 + i % 8, "");
    }
    SweepIntake intake = new SweepIntake();
    EngineThreadsFixture engineThreads = new EngineThreadsFixture(EngineConfig.DEFAULTS);
    SegmentAllocator allocator =
        new SegmentAllocator(
            store,
            Ticker.systemTicker(),
            EngineConfig.DEFAULTS,
            engineThreads.threads(),
            EngineListeners.NONE.withOnCached(intake));
    IdleTagSweeper sweeper =
        new IdleTagSweeper(
                allocator,
                intake,
                Duration.ofMillis(5),
                Duration.ofMillis(1),
                ServerThreads.idleSweeper())
            .start();
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    AtomicLong failures = new AtomicLong();
    AtomicReference<Throwable> firstFailure = new AtomicReference<>();
    AtomicLong notRising = new AtomicLong();
    long[][] issued = new long[THREADS][];
    try {
      long endAt = System.nanoTime() + RUN_NANOS;
      List<Future<long[]>> results = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        long seed = 0x1EAFL + t;
        results.add(
            pool.submit(
                () -> {
                  SplittableRandom random = new SplittableRandom(seed);
                  long[] lastId = new long[TAGS];
                  long[] out = new long[MAX_CALLS_PER_THREAD];
                  int n = 0;
                  while (n < MAX_CALLS_PER_THREAD && System.nanoTime() < endAt) {
                    // Skewed towards low indexes: hot tags stay cached, cold ones idle past the
                    // TTL.
                    double u = random.nextDouble();
                    int tag = (int) (TAGS * u * u * u * u);
                    try {
                      long id = Blocking.nextId(allocator, tags[tag], TimeUnit.SECONDS.toNanos(10));
                      if (id <= lastId[tag]) {
                        notRising.incrementAndGet();
                      }
                      lastId[tag] = id;
                      out[n++] = ((long) tag << ID_BITS) | id;
                    } catch (RuntimeException e) {
                      failures.incrementAndGet();
                      firstFailure.compareAndSet(null, e);
                    }
                  }
                  return Arrays.copyOf(out, n);
                }));
      }
      for (int t = 0; t < THREADS; t++) {
        issued[t] = results.get(t).get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
      sweeper.close();
      allocator.close();
      engineThreads.close();
    }

    long evictions = sweeper.evictions();
    long[] all = Arrays.stream(issued).flatMapToLong(Arrays::stream).toArray();
    long maxId = Arrays.stream(all).map(v -> v & ((1L << ID_BITS) - 1)).max().orElse(0);

    assertEquals(0, failures.get(), "failed calls, first: " + firstFailure.get());
    assertTrue(maxId < 1L << ID_BITS, "IDs fit the packing used to check them: " + maxId);
    IdChecks.assertAllDistinct(issued);
    assertEquals(0, notRising.get(), "a thread saw a tag's ID not rise after a reload");
    assertTrue(all.length > TAGS, "the run issued IDs: " + all.length);
    assertTrue(evictions > 0, "the sweeper evicted tags during the run: " + evictions);
  }
}
