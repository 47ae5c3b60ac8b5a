package io.leaf.server.snowflake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.testing.SnowflakeServers;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import io.leaf.v1.WorkerStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A real server process restarted with its clock an hour behind (libfaketime), taking over the
 * worker ID another process released. Skipped with a visible line when libfaketime is not installed
 * (Debian: {@code apt-get install faketime}).
 *
 * <p>libfaketime shifts both clocks by the same constant here: with {@code
 * FAKETIME_DONT_FAKE_MONOTONIC=1} the JVM's timed waits spin and a server takes minutes to start on
 * a loaded machine, and an offset changed while running would move the monotonic clock too, which
 * no real clock step does. The step of the wall clock while running is therefore tested on a real
 * server in process with an injected wall clock ({@code SnowflakeClockStepTest}).
 */
@Tag("slow")
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("SnowflakeClockStepProcessTest")
class SnowflakeClockStepProcessTest {

  private static final Path LIBFAKETIME =
      Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");
  private static final String[] FLAGS = {"--worker-id-range", "9-9", "--worker-lease-ttl", "5s"};

  /** IDs a load receives before the test moves on: it is serving, under load. */
  private static final int SERVED = 500;

  @BeforeAll
  static void needFaketime() {
    if (!Files.exists(LIBFAKETIME)) {
      System.err.println(
          "[leaf-tests] SKIPPED faketime test: "
              + LIBFAKETIME
              + " not found (apt-get install faketime)");
      Assumptions.abort("SKIPPED: no libfaketime");
    }
  }

  /** The environment that runs a JVM with its clocks {@code offset} away (e.g. {@code -3600}). */
  private static Map<String, String> faketime(String offset) {
    return Map.of("LD_PRELOAD", LIBFAKETIME.toString(), "FAKETIME", offset, "NO_FAKE_STAT", "1");
  }

  private static int duplicates(Iterable<Long> ids, Set<Long> seen) {
    int d = 0;
    for (long id : ids) {
      if (!seen.add(id)) {
        d++;
      }
    }
    return d;
  }

  @Test
  @Timeout(180)
  void restartWithClockOneHourBehind_zeroRepeatsAndKeepsAnswering() throws Exception {
    try (TestDatabase db = TestDatabases.mariaDb();
        SnowflakeServers servers = new SnowflakeServers(db)) {
      SnowflakeServers.Server a = servers.start(Map.of(), FLAGS);
      assertTrue(a.awaitWorker(9, 30), "leased\n" + a.process.output());
      SnowflakeServers.Load loadA = servers.load(a, 4);
      assertTrue(loadA.awaitIds(SERVED), "a serves: " + loadA.ids.size());
      loadA.stop();
      a.process.signal("TERM");
      assertTrue(
          a.process.awaitLine("worker ID 9 released", 30, TimeUnit.SECONDS),
          "released at shutdown\n" + a.process.output());
      SnowflakeServers.Server b = servers.start(faketime("-3600"), FLAGS);
      assertTrue(
          b.awaitWorker(9, 30),
          "b claims the released worker after the quarantine\n" + b.process.output());
      SnowflakeServers.Load loadB = servers.load(b, 4);
      assertTrue(loadB.awaitIds(SERVED), "b serves an hour behind: " + loadB.ids.size());
      loadB.stop();
      Set<Long> seen = new HashSet<>();
      int duplicates = duplicates(loadA.ids, seen) + duplicates(loadB.ids, seen);
      WorkerStatus worker = b.worker();
      System.out.printf(
          "[snowflake] restart one hour behind: a issued %d, b issued %d, b's"
              + " failures %s, duplicates %d, b ahead of its wall clock %d ms%n",
          loadA.ids.size(),
          loadB.ids.size(),
          loadB.failures,
          duplicates,
          worker.getAheadOfWallClockMs());
      assertTrue(loadA.ids.size() > 10, "a served: " + loadA.ids.size());
      assertTrue(loadB.ids.size() > 10, "b kept answering an hour behind: " + loadB.ids.size());
      assertEquals(0, duplicates, "no ID twice");
      assertTrue(
          loadB.ids.stream().mapToLong(Long::longValue).min().orElseThrow()
              > loadA.ids.stream().mapToLong(Long::longValue).max().orElseThrow(),
          "b's IDs lie above a's");
      assertTrue(
          worker.getAheadOfWallClockMs() > 3_500_000,
          "about an hour ahead: " + worker.getAheadOfWallClockMs());
    }
  }

  @Test
  @Timeout(180)
  void storedTimestampBeyondLayoutEnd_afterKillNine_workerIssuesAgainAfterRestart()
      throws Exception {
    try (TestDatabase db = TestDatabases.mariaDb();
        SnowflakeServers servers = new SnowflakeServers(db)) {
      // The row as a server whose clock jumped 56 years ahead (past the layout's end, 2080)
      // leaves it when killed with kill -9: its renewals stored a ceiling in 2082. (A server
      // refuses to start outside its layout, so the glitch cannot be played from the start.)
      long stored = SnowflakeLayout.DEFAULT.maxTimestampMs() + Duration.ofDays(700).toMillis();
      try (java.sql.Connection c =
              java.sql.DriverManager.getConnection(db.url, db.user, db.password);
          java.sql.Statement st = c.createStatement()) {
        SnowflakeServers.Server a = servers.start(Map.of(), FLAGS);
        assertTrue(a.awaitWorker(9, 60), "a leases worker 9\n" + a.process.output());
        a.process.signal("9");
        st.executeUpdate(
            "UPDATE leaf_worker SET last_timestamp_ms = "
                + stored
                + ", lease_expires_ms = 1 WHERE worker_id = 9");
      }
      SnowflakeServers.Server b = servers.start(Map.of(), FLAGS);
      assertTrue(b.awaitWorker(9, 60), "b issues with worker 9 again\n" + b.process.output());
      SnowflakeServers.Load loadB = servers.load(b, 2);
      assertTrue(loadB.awaitIds(SERVED), "b issues: " + loadB.ids.size() + " " + loadB.failures);
      loadB.stop();
      System.out.printf(
          "[snowflake] glitch +56 years, kill -9, restart: stored %d, b issued %d,"
              + " b's failures %s%n",
          stored, loadB.ids.size(), loadB.failures);
      assertTrue(loadB.ids.size() > 10, "b issues: " + loadB.ids.size() + " " + loadB.failures);
      assertTrue(
          b.process.awaitLine("beyond the layout's end", 5, TimeUnit.SECONDS),
          "the discarded timestamp is logged\n" + b.process.output());
    }
  }
}
