package io.leaf.server.snowflake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.testing.Poll;
import io.leaf.server.testing.SnowflakeServers;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Real server processes on one MariaDB database racing for one worker ID: a process paused with
 * {@code kill -STOP} past its lease and resumed after another took its worker ID, and one killed
 * with {@code kill -9}. Every ID any caller received is counted; none may come twice.
 */
@Tag("slow")
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("SnowflakeProcessTest")
class SnowflakeProcessTest {

  private static final String[] FLAGS = {"--worker-id-range", "5-5", "--worker-lease-ttl", "3s"};

  /** IDs a load receives before the test moves on: it is serving, under load. */
  private static final int SERVED = 500;

  @Test
  @Timeout(180)
  void pausedProcess_workerTakenOverWhilePaused_issuesNoIdOfTheOther() throws Exception {
    try (TestDatabase db = TestDatabases.mariaDb();
        SnowflakeServers servers = new SnowflakeServers(db)) {
      SnowflakeServers.Server a = servers.start(Map.of(), FLAGS);
      assertTrue(a.awaitWorker(5, 30), "a leases worker 5\n" + a.process.output());
      SnowflakeServers.Load loadA = servers.load(a, 4);
      assertTrue(loadA.awaitIds(SERVED), "a serves: " + loadA.ids.size());
      a.process.signal("STOP");
      long pausedAt = System.nanoTime();
      int beforePause = loadA.ids.size();
      SnowflakeServers.Server b = servers.start(Map.of(), FLAGS);
      assertTrue(
          b.awaitWorker(5, 30), "b takes worker 5 once a's lease ran out\n" + b.process.output());
      assertTrue(System.nanoTime() - pausedAt > TimeUnit.SECONDS.toNanos(3), "not before a's TTL");
      SnowflakeServers.Load loadB = servers.load(b, 4);
      assertTrue(loadB.awaitIds(SERVED), "b serves: " + loadB.ids.size());
      int failedBeforeWake = loadA.failureCount();
      a.process.signal("CONT");
      // a wakes up with calls queued during the pause: every one must be refused. Wait until it
      // noticed the loss and refused fresh calls made after the wake, b still serving.
      int servedByB = loadB.ids.size();
      assertTrue(
          a.process.awaitLine("no longer this server's", 30, TimeUnit.SECONDS),
          "a noticed it lost the worker\n" + a.process.output());
      assertTrue(
          Poll.until(
              () ->
                  loadA.failureCount() >= failedBeforeWake + 100
                      && loadB.ids.size() >= servedByB + SERVED,
              Duration.ofSeconds(30)),
          "a refuses after the wake while b serves: " + loadA.failures);
      loadA.stop();
      loadB.stop();
      Set<Long> seen = new HashSet<>();
      int duplicates = 0;
      for (long id : loadA.ids) {
        if (!seen.add(id)) {
          duplicates++;
        }
      }
      int afterPause = loadA.ids.size() - beforePause;
      for (long id : loadB.ids) {
        if (!seen.add(id)) {
          duplicates++;
        }
      }
      System.out.printf(
          "[snowflake] paused process: a issued %d before the pause, %d after;"
              + " b issued %d; a's refusals %s; duplicates %d%n",
          beforePause, afterPause, loadB.ids.size(), loadA.failures, duplicates);
      assertTrue(beforePause > 10, "a served before the pause: " + beforePause);
      assertTrue(loadB.ids.size() > 10, "b served: " + loadB.ids.size());
      assertEquals(0, duplicates, "no ID twice");
      long maxA = loadA.ids.stream().mapToLong(Long::longValue).max().orElseThrow();
      long minB = loadB.ids.stream().mapToLong(Long::longValue).min().orElseThrow();
      assertTrue(minB > maxA, "b's IDs all lie above everything a ever issued");
      assertTrue(
          a.process.awaitLine("no longer this server's", 10, TimeUnit.SECONDS),
          "a noticed it lost the worker\n" + a.process.output());
    }
  }

  @Test
  @Timeout(180)
  void killNine_anotherServerTakesOver_noRepeats() throws Exception {
    try (TestDatabase db = TestDatabases.mariaDb();
        SnowflakeServers servers = new SnowflakeServers(db)) {
      SnowflakeServers.Server a = servers.start(Map.of(), FLAGS);
      assertTrue(a.awaitWorker(5, 30), "a leases worker 5\n" + a.process.output());
      SnowflakeServers.Load loadA = servers.load(a, 4);
      assertTrue(loadA.awaitIds(SERVED), "a serves: " + loadA.ids.size());
      a.process.signal("9");
      loadA.stop();
      SnowflakeServers.Server b = servers.start(Map.of(), FLAGS);
      assertTrue(b.awaitWorker(5, 30), "b takes worker 5\n" + b.process.output());
      SnowflakeServers.Load loadB = servers.load(b, 4);
      assertTrue(loadB.awaitIds(SERVED), "b serves: " + loadB.ids.size());
      loadB.stop();
      Set<Long> seen = new HashSet<>(loadA.ids);
      int duplicates = loadA.ids.size() - seen.size();
      for (long id : loadB.ids) {
        if (!seen.add(id)) {
          duplicates++;
        }
      }
      System.out.printf(
          "[snowflake] kill -9: a issued %d, b issued %d, duplicates %d%n",
          loadA.ids.size(), loadB.ids.size(), duplicates);
      assertTrue(
          loadA.ids.size() > 10 && loadB.ids.size() > 10,
          "both served: " + loadA.ids.size() + ", " + loadB.ids.size());
      assertEquals(0, duplicates, "no ID twice");
      assertTrue(
          List.copyOf(loadB.ids).stream().mapToLong(Long::longValue).min().orElseThrow()
              > loadA.ids.stream().mapToLong(Long::longValue).max().orElseThrow(),
          "b starts above a's last ID");
    }
  }
}
