package io.leaf.server.scattered;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.StatusRuntimeException;
import io.leaf.server.testing.Pace;
import io.leaf.server.testing.Poll;
import io.leaf.server.testing.ServerNode;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.Ordering;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Three server processes on MariaDB issue one SCATTERED tag, NextId and NextIdBatch through every
 * one; one is killed -9 mid-load and a fresh process takes its place. No ID twice, every ID a
 * scattered segment value, none in order.
 */
@Tag("slow")
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("ScatteredProcessTest")
class ScatteredProcessTest {

  private static final String TAG = "rows";

  @Test
  void threeServersOneKilled_noRepeatsEveryIdScattered() throws Exception {
    try (TestDatabase db = TestDatabases.mariaDb()) {
      List<ServerNode> nodes = new CopyOnWriteArrayList<>();
      try {
        for (int i = 0; i < 3; i++) {
          nodes.add(new ServerNode(db, "--tag-lease-ttl", "1s"));
        }
        nodes
            .get(0)
            .stub(30)
            .createTag(
                CreateTagRequest.newBuilder()
                    .setBizTag(TAG)
                    .setStep(50)
                    .setOrdering(Ordering.SCATTERED)
                    .build());
        Set<Long> ids = ConcurrentHashMap.newKeySet();
        AtomicLong taken = new AtomicLong();
        AtomicLong repeats = new AtomicLong();
        AtomicLong descents = new AtomicLong();
        AtomicBoolean done = new AtomicBoolean();
        List<Thread> callers = new ArrayList<>();
        for (int c = 0; c < 6; c++) {
          callers.add(caller(nodes, c, done, ids, taken, repeats, descents));
        }
        Poll.until(() -> taken.get() > 5_000, Duration.ofSeconds(30));
        nodes.get(1).kill();
        nodes.set(1, new ServerNode(db, "--tag-lease-ttl", "1s"));
        long before = taken.get();
        assertTrue(
            Poll.until(() -> taken.get() > before + 5_000, Duration.ofSeconds(30)),
            "served on after kill -9: " + taken.get());
        done.set(true);
        for (Thread t : callers) {
          t.join();
        }
        long maxId =
            nodes
                .get(0)
                .stub(10)
                .getTag(GetTagRequest.newBuilder().setBizTag(TAG).build())
                .getTag()
                .getMaxId();
        for (long id : ids) {
          assertTrue(id > 0, "positive: " + id);
          long seq = ScatteredIds.sequence(id);
          assertTrue(seq >= 1 && seq < maxId, "a segment value below " + maxId + ": " + seq);
        }
        System.out.printf(
            "scattered process: %d IDs from 3 servers (one killed -9), %d repeats,"
                + " %d descents between consecutive IDs%n",
            taken.get(), repeats.get(), descents.get());
        assertEquals(0, repeats.get(), "no ID twice in " + taken.get());
        assertEquals(taken.get(), ids.size(), "no ID twice");
        assertTrue(descents.get() > taken.get() / 4, "not monotonic: " + descents.get());
      } finally {
        for (ServerNode n : nodes) {
          n.kill();
        }
      }
    }
  }

  /** Calls node {@code c % 3} (whichever process holds that place now) until {@code done}. */
  private static Thread caller(
      List<ServerNode> nodes,
      int c,
      AtomicBoolean done,
      Set<Long> ids,
      AtomicLong taken,
      AtomicLong repeats,
      AtomicLong descents) {
    boolean batch = c % 2 == 1;
    Thread t =
        new Thread(
            () -> {
              long last = -1;
              while (!done.get()) {
                LeafServiceGrpc.LeafServiceBlockingStub stub =
                    LeafServiceGrpc.newBlockingStub(nodes.get(c % 3).channel)
                        .withDeadlineAfter(2, TimeUnit.SECONDS);
                List<Long> got = new ArrayList<>();
                try {
                  if (batch) {
                    stub.nextIdBatch(
                            NextIdBatchRequest.newBuilder().setBizTag(TAG).setCount(20).build())
                        .forEachRemaining(b -> got.addAll(b.getIdsList()));
                  } else {
                    got.add(stub.nextId(NextIdRequest.newBuilder().setBizTag(TAG).build()).getId());
                  }
                } catch (StatusRuntimeException | IllegalStateException e) {
                  // the killed process (or its shut channel): count what arrived, retry later
                  pause();
                }
                for (long id : got) {
                  taken.incrementAndGet();
                  if (!ids.add(id)) {
                    repeats.incrementAndGet();
                  }
                  if (last >= 0 && id < last) {
                    descents.incrementAndGet();
                  }
                  last = id;
                }
              }
            });
    t.start();
    return t;
  }

  private static void pause() {
    Pace.backOffUnlessInterrupted();
  }
}
