package io.leaf.server.uuid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.StatusRuntimeException;
import io.leaf.server.testing.Poll;
import io.leaf.server.testing.SnowflakeServers;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import io.leaf.v1.NextUuidRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Two server processes on one MariaDB database, one worker ID: the first serving UUIDs under load
 * is killed with {@code kill -9}, the second takes the worker ID over; no UUID comes twice, and the
 * second starts above the first's last.
 */
@Tag("slow")
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("UuidProcessTest")
class UuidProcessTest {

  private static final String[] FLAGS = {"--worker-id-range", "6-6", "--worker-lease-ttl", "3s"};
  private static final int SERVED = 500;

  /** Callers asking one server for UUIDs until stopped. */
  private static final class Load {
    final ConcurrentLinkedQueue<String> values = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<Thread> threads = new ArrayList<>();

    Load(SnowflakeServers.Server server, int callers) {
      for (int i = 0; i < callers; i++) {
        Thread t =
            new Thread(
                () -> {
                  while (!stop.get()) {
                    try {
                      values.add(
                          server
                              .stub
                              .withDeadlineAfter(1, TimeUnit.SECONDS)
                              .nextUuid(NextUuidRequest.getDefaultInstance())
                              .getValue());
                    } catch (StatusRuntimeException e) {
                      // Killed, or no lease yet: counted by what arrives, not by failures.
                      Thread.onSpinWait();
                    }
                  }
                },
                "uuid-load");
        t.setDaemon(true);
        t.start();
        threads.add(t);
      }
    }

    boolean awaitValues(int n) throws InterruptedException {
      return Poll.until(() -> values.size() >= n, Duration.ofSeconds(60));
    }

    void stop() throws InterruptedException {
      stop.set(true);
      for (Thread t : threads) {
        t.join(5_000);
      }
    }
  }

  @Test
  @Timeout(180)
  void killNine_anotherServerTakesOver_noUuidTwice() throws Exception {
    try (TestDatabase db = TestDatabases.mariaDb();
        SnowflakeServers servers = new SnowflakeServers(db)) {
      SnowflakeServers.Server a = servers.start(Map.of(), FLAGS);
      assertTrue(a.awaitWorker(6, 30), "a leases worker 6\n" + a.process.output());
      Load loadA = new Load(a, 4);
      try {
        assertTrue(loadA.awaitValues(SERVED), "a serves: " + loadA.values.size());
        a.process.signal("9");
      } finally {
        loadA.stop();
      }
      SnowflakeServers.Server b = servers.start(Map.of(), FLAGS);
      assertTrue(b.awaitWorker(6, 30), "b takes worker 6\n" + b.process.output());
      Load loadB = new Load(b, 4);
      try {
        assertTrue(loadB.awaitValues(SERVED), "b serves: " + loadB.values.size());
      } finally {
        loadB.stop();
      }
      Set<String> seen = new HashSet<>(loadA.values);
      int duplicates = loadA.values.size() - seen.size();
      for (String v : loadB.values) {
        if (!seen.add(v)) {
          duplicates++;
        }
      }
      System.out.printf(
          "[uuid] kill -9: a issued %d, b issued %d, duplicates %d%n",
          loadA.values.size(), loadB.values.size(), duplicates);
      assertEquals(0, duplicates, "no UUID twice");
      for (String v : seen) {
        assertEquals(7, UUID.fromString(v).version(), "version 7: " + v);
      }
      String lastOfA = loadA.values.stream().max(String::compareTo).orElseThrow();
      String firstOfB = loadB.values.stream().min(String::compareTo).orElseThrow();
      assertTrue(
          firstOfB.compareTo(lastOfA) > 0,
          "b starts above a's last UUID: " + lastOfA + " then " + firstOfB);
    }
  }
}
