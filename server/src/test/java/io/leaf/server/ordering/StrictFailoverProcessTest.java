package io.leaf.server.ordering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.testing.Poll;
import io.leaf.server.testing.StrictCallers;
import io.leaf.server.testing.StrictFleet;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Three server processes on MariaDB, callers through every one: the owner killed -9, then the next
 * owner SIGSTOPped past its lease and resumed. No ID twice, real-time order kept, IDs served again
 * within 20 s (how soon is bench O3's: on a loaded machine a 2 s TTL's renewals run late, and
 * ownership moves more often than the kill alone would move it).
 */
@Tag("slow")
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("StrictFailoverProcessTest")
class StrictFailoverProcessTest {

  private static final long TTL_MS = 2000;
  private static final String TAG = "events";

  @Test
  void ownerKilledThenNextOwnerPaused_orderKeptNoRepeats() throws Exception {
    try (TestDatabase db = TestDatabases.mariaDb();
        StrictFleet fleet = StrictFleet.on(db, 3, TTL_MS)) {
      fleet.createStrict(TAG, 50);
      try (StrictCallers callers = new StrictCallers(fleet.nodes, TAG)) {
        callers.awaitMore(300, "calls before the kill");
        int first = callers.owner(fleet.nodes.get(0), fleet.addresses);
        fleet.nodes.get(first).kill();
        long killed = System.nanoTime();
        int ask = (first + 1) % 3;
        long failoverMs = callers.awaitServedVia(ask, killed, "served again after kill -9");
        int[] second = {first};
        assertTrue(
            Poll.until(
                () -> {
                  try {
                    second[0] = callers.owner(fleet.nodes.get(ask), fleet.addresses);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  return second[0] != first;
                },
                Duration.ofSeconds(20)),
            "a new owner after the kill");
        fleet.nodes.get(second[0]).process.signal("STOP");
        long pausedAt = System.nanoTime();
        long resumeAt = pausedAt + TimeUnit.MILLISECONDS.toNanos(TTL_MS * 2 + 1000);
        Poll.until(() -> System.nanoTime() > resumeAt, Duration.ofSeconds(30));
        fleet.nodes.get(second[0]).process.signal("CONT");
        callers.awaitMore(300, "calls after the paused owner resumed");
        callers.close();
        System.out.printf(
            "strict failover: %d calls, %d violations, %d repeats, served again %d ms after"
                + " kill -9 (TTL %d ms)%n",
            callers.checker.calls(),
            callers.checker.violations(),
            callers.checker.repeats(),
            failoverMs,
            TTL_MS);
        assertEquals(0, callers.checker.repeats(), "no ID twice");
        assertEquals(0, callers.checker.violations(), "real-time order kept");
      }
    }
  }
}
