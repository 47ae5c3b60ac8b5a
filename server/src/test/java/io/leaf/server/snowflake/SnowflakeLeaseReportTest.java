package io.leaf.server.snowflake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.base.Ticker;
import io.leaf.server.store.MemoryWorkerLeaseStore;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The lease's state reported to the health service: often, and never at the lease's expense. */
class SnowflakeLeaseReportTest {

  @Test
  void reportLeaseTo_reportThatThrows_renewalsGoOnAndReportsKeepComing() throws Exception {
    MemoryWorkerLeaseStore leases = new MemoryWorkerLeaseStore(InstantSource.system());
    AtomicInteger reports = new AtomicInteger();
    // TTL 3 s: renewed every second, fenced 2.4 s after the last acknowledged renewal.
    try (Snowflake snowflake = new Snowflake(leases, SnowflakeLayout.DEFAULT, 0, 0,
        Duration.ofSeconds(3), InstantSource.system(), Ticker.systemTicker())) {
      snowflake.reportLeaseTo(() -> {
        reports.incrementAndGet();
        throw new IllegalStateException("call already cancelled");
      });
      snowflake.start();
      Thread.sleep(4_500);
      assertTrue(snowflake.generator().leaseValid(),
          "renewed past the fence although every report threw");
      assertEquals(0, snowflake.generator().workerId());
      assertTrue(reports.get() >= 12, "a report every 250 ms and after each step: " + reports);
    }
  }

  @Test
  void reportLeaseTo_leaseLapsesWithoutAStep_reportSeesItWithinAQuarterSecond() throws Exception {
    MemoryWorkerLeaseStore leases = new MemoryWorkerLeaseStore(InstantSource.system());
    List<Boolean> seen = new ArrayList<>();
    try (Snowflake snowflake = new Snowflake(leases, SnowflakeLayout.DEFAULT, 0, 0,
        Duration.ofSeconds(3), InstantSource.system(), Ticker.systemTicker())) {
      snowflake.reportLeaseTo(() -> {
        synchronized (seen) {
          seen.add(snowflake.generator().leaseValid());
        }
      });
      snowflake.start();
      long until = System.nanoTime() + 5_000_000_000L;
      while (!snowflake.generator().leaseValid() && System.nanoTime() < until) {
        Thread.sleep(10);
      }
      assertTrue(snowflake.generator().leaseValid(), "leased");
      // Renewals now fail and hang nowhere: the lease lapses by the monotonic clock alone.
      leases.failWith(new io.leaf.server.store.StoreUnavailableException("database down", null));
      Thread.sleep(3_000);
      assertTrue(!snowflake.generator().leaseValid(), "fenced 2.4 s after the last renewal");
      synchronized (seen) {
        assertTrue(seen.contains(true) && !seen.get(seen.size() - 1),
            "reported valid, then lapsed: " + seen.subList(Math.max(0, seen.size() - 5),
                seen.size()));
      }
    }
  }
}
