package io.leaf.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.StatusRuntimeException;
import io.leaf.server.testing.Poll;
import io.leaf.server.testing.ServerNode;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Three packaged servers on one database under load; one is killed with -9 (no shutdown hook, no
 * pool close) and started again, twice: no ID is issued twice across all of them.
 */
@Tag("slow")
class ServerKillTest {

  private static final int SERVERS = 3;
  private static final int CALLERS_PER_SERVER = 3;
  private static final int SERVED_PER_ROUND = 500;

  @Test
  @Timeout(300)
  void nextId_oneOfThreeServersKilledAndRestartedOnPostgres_noRepeats() throws Exception {
    run(TestDatabases::postgres);
  }

  @Test
  @Timeout(300)
  void nextId_oneOfThreeServersKilledAndRestartedOnMariaDb_noRepeats() throws Exception {
    run(TestDatabases::mariaDb);
  }

  private static void run(Supplier<TestDatabase> database) throws Exception {
    try (TestDatabase db = database.get()) {
      db.store(1).createTag("killed", 1, 20, null);
      List<AtomicReference<ServerNode>> nodes = new ArrayList<>();
      ExecutorService callers = Executors.newFixedThreadPool(SERVERS * CALLERS_PER_SERVER);
      AtomicBoolean stop = new AtomicBoolean();
      ConcurrentLinkedQueue<long[]> results = new ConcurrentLinkedQueue<>();
      AtomicLongArray served = new AtomicLongArray(SERVERS);
      try {
        for (int s = 0; s < SERVERS; s++) {
          nodes.add(new AtomicReference<>(new ServerNode(db)));
        }
        List<Future<?>> running = new ArrayList<>();
        for (int c = 0; c < SERVERS * CALLERS_PER_SERVER; c++) {
          int server = c % SERVERS;
          AtomicReference<ServerNode> node = nodes.get(server);
          running.add(callers.submit(() -> {
            results.add(call(node, stop, () -> served.incrementAndGet(server)));
            return null;
          }));
        }
        for (int round = 0; round < 2; round++) {
          awaitEachServes(served);
          AtomicReference<ServerNode> victim = nodes.get(round % SERVERS);
          victim.get().kill();
          victim.set(new ServerNode(db));
        }
        awaitEachServes(served);
        stop.set(true);
        for (Future<?> f : running) {
          f.get(1, TimeUnit.MINUTES);
        }
        long[] all = results.stream().flatMapToLong(Arrays::stream).sorted().toArray();
        long repeats = 0;
        for (int i = 1; i < all.length; i++) {
          if (all[i] == all[i - 1]) {
            repeats++;
          }
        }
        System.err.println("[leaf-tests] three servers, one killed with -9 twice, on "
            + (db.isPostgres() ? "PostgreSQL" : "MariaDB") + ": " + all.length + " IDs, "
            + repeats + " issued twice");
        assertTrue(all.length > 1_000, "the servers issued IDs: " + all.length);
        assertEquals(0, repeats, "IDs issued twice across the kills");
      } finally {
        stop.set(true);
        callers.shutdownNow();
        for (AtomicReference<ServerNode> node : nodes) {
          node.get().kill();
        }
      }
    }
  }

  /**
   * Waits until every server, a restarted one included, issued {@link #SERVED_PER_ROUND} more IDs
   * (many segment loads at step 20) since the last call.
   */
  private static void awaitEachServes(AtomicLongArray served) throws InterruptedException {
    long[] from = new long[SERVERS];
    for (int s = 0; s < SERVERS; s++) {
      from[s] = served.get(s);
    }
    assertTrue(Poll.until(() -> {
      for (int s = 0; s < SERVERS; s++) {
        if (served.get(s) < from[s] + SERVED_PER_ROUND) {
          return false;
        }
      }
      return true;
    }, Duration.ofSeconds(60)), "each server serves: " + served);
  }

  /** Calls its server until stopped, following it across restarts; failures are skipped. */
  private static long[] call(AtomicReference<ServerNode> node, AtomicBoolean stop, Runnable onId)
      throws InterruptedException {
    NextIdRequest request = NextIdRequest.newBuilder().setBizTag("killed").build();
    long[] ids = new long[1 << 12];
    int n = 0;
    while (!stop.get()) {
      try {
        long id = LeafServiceGrpc.newBlockingStub(node.get().channel)
            .withDeadlineAfter(2, TimeUnit.SECONDS).nextId(request).getId();
        if (n == ids.length) {
          ids = Arrays.copyOf(ids, n * 2);
        }
        ids[n++] = id;
        onId.run();
      } catch (StatusRuntimeException e) {
        // The server was killed under the call, or is starting again.
        Thread.sleep(20);
      }
    }
    return Arrays.copyOf(ids, n);
  }
}
