package io.leaf.server.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.testing.IdChecks;
import io.leaf.server.testing.InProcessLeaf;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.ReserveIdsRequest;
import io.leaf.v1.ReservedIds;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Real concurrency through gRPC on the direct executor: unary calls, streams and reservations on
 * one tag whose step stays 10, so nearly every call races a switch, waits on a load or takes a
 * dedicated range. No ID repeats.
 */
class ApiConcurrencyTest {

  private static final int UNARY_THREADS = 6;
  private static final int CALLS = 3_000;
  private static final int STREAM_THREADS = 2;
  private static final int STREAMS = 40;

  @Test
  @Timeout(120)
  void nextIdAndBatches_manyThreadsStep10_noIdTwiceAndEachCallerIncreasing() throws Exception {
    MemorySegmentStore memory = new MemorySegmentStore();
    memory.createTag("hot", 1, 10, null);
    ExecutorService pool = Executors.newFixedThreadPool(UNARY_THREADS + STREAM_THREADS);
    try (InProcessLeaf leaf = new InProcessLeaf(memory, "--max-step", "10")) {
      CyclicBarrier go = new CyclicBarrier(UNARY_THREADS + STREAM_THREADS);
      List<Future<long[]>> results = new ArrayList<>();
      for (int t = 0; t < UNARY_THREADS; t++) {
        results.add(
            pool.submit(
                () -> {
                  long[] ids = new long[CALLS];
                  go.await();
                  for (int i = 0; i < CALLS; i++) {
                    ids[i] =
                        leaf.blocking
                            .nextId(NextIdRequest.newBuilder().setBizTag("hot").build())
                            .getId();
                  }
                  IdChecks.assertIncreasing(ids, "a unary caller");
                  return ids;
                }));
      }
      for (int t = 0; t < STREAM_THREADS; t++) {
        results.add(
            pool.submit(
                () -> {
                  List<Long> ids = new ArrayList<>();
                  go.await();
                  for (int s = 0; s < STREAMS; s++) {
                    leaf.blocking
                        .nextIdBatch(
                            NextIdBatchRequest.newBuilder()
                                .setBizTag("hot")
                                .setCount(95)
                                .setChunkSize(20)
                                .build())
                        .forEachRemaining(b -> ids.addAll(b.getIdsList()));
                  }
                  long[] out = ids.stream().mapToLong(Long::longValue).toArray();
                  IdChecks.assertIncreasing(out, "a stream caller");
                  return out;
                }));
      }
      long[][] all = new long[results.size()][];
      for (int i = 0; i < all.length; i++) {
        all[i] = results.get(i).get(100, TimeUnit.SECONDS);
      }
      long[] distinct = IdChecks.assertAllDistinct(all);
      assertEquals(UNARY_THREADS * CALLS + STREAM_THREADS * STREAMS * 95, distinct.length);
      assertEquals(0, leaf.allocator.waitingCalls(), "no call left waiting");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  @Timeout(120)
  void mixedNextIdBatchAndReserve_16ThreadsStep10_noIdTwice() throws Exception {
    MemorySegmentStore memory = new MemorySegmentStore();
    memory.createTag("mix", 1, 10, null);
    int threads = 16;
    int rounds = 600;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try (InProcessLeaf leaf = new InProcessLeaf(memory, "--max-step", "10")) {
      CyclicBarrier go = new CyclicBarrier(threads);
      List<Future<long[]>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int kind = t % 3;
        results.add(
            pool.submit(
                () -> {
                  List<Long> ids = new ArrayList<>();
                  go.await();
                  for (int i = 0; i < rounds; i++) {
                    if (kind == 0) {
                      ids.add(
                          leaf.blocking
                              .nextId(NextIdRequest.newBuilder().setBizTag("mix").build())
                              .getId());
                    } else if (kind == 1) {
                      leaf.blocking
                          .nextIdBatch(
                              NextIdBatchRequest.newBuilder()
                                  .setBizTag("mix")
                                  .setCount(1 + i % 25)
                                  .setChunkSize(7)
                                  .build())
                          .forEachRemaining(b -> ids.addAll(b.getIdsList()));
                    } else {
                      // Counts around the step: some fit the buffer, most need a dedicated write.
                      int count = 1 + (i * 7) % 40;
                      ReservedIds r =
                          leaf.blocking.reserveIds(
                              ReserveIdsRequest.newBuilder()
                                  .setBizTag("mix")
                                  .setCount(count)
                                  .build());
                      assertTrue(r.getRangesCount() <= 3, "at most 3 ranges: " + r);
                      long before = ids.size();
                      for (int k = 1; k < r.getRangesCount(); k++) {
                        assertTrue(
                            r.getRanges(k - 1).getEnd() < r.getRanges(k).getStart(),
                            "ascending, disjoint ranges: " + r);
                      }
                      r.getRangesList()
                          .forEach(
                              x -> {
                                for (long id = x.getStart(); id < x.getEnd(); id++) {
                                  ids.add(id);
                                }
                              });
                      assertEquals(count, ids.size() - before, "exact count in " + r);
                    }
                  }
                  return ids.stream().mapToLong(Long::longValue).toArray();
                }));
      }
      long[][] all = new long[threads][];
      long expected = 0;
      for (int i = 0; i < threads; i++) {
        all[i] = results.get(i).get(100, TimeUnit.SECONDS);
        // A reservation's dedicated range raises the tag's floor, so every caller's IDs increase,
        // the reserving callers' too.
        IdChecks.assertIncreasing(all[i], "caller " + i);
        for (int r = 0; r < rounds; r++) {
          expected += i % 3 == 0 ? 1 : i % 3 == 1 ? 1 + r % 25 : 1 + (r * 7) % 40;
        }
      }
      long[] distinct = IdChecks.assertAllDistinct(all);
      assertEquals(expected, distinct.length, "every ID asked for, each once");
      assertEquals(0, leaf.allocator.waitingCalls(), "no call left waiting");
    } finally {
      pool.shutdownNow();
    }
  }
}
