package io.leaf.server.snowflake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.base.Ticker;
import io.leaf.server.store.MemoryWorkerLeaseStore;
import io.leaf.server.store.StoreUnavailableException;
import io.leaf.server.store.WorkerLease;
import io.leaf.server.store.WorkerLeaseStore;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
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

  /** Leases in memory whose renewals, once {@link #hang} is called, wait until released. */
  private static final class HangingRenewals implements WorkerLeaseStore {
    final MemoryWorkerLeaseStore delegate = new MemoryWorkerLeaseStore(InstantSource.system());
    final CountDownLatch released = new CountDownLatch(1);
    volatile boolean hanging;

    void hang() {
      hanging = true;
    }

    @Override
    public void createSchemaIfMissing() {
      delegate.createSchemaIfMissing();
    }

    @Override
    public Optional<WorkerLease> claim(int fromId, int toId, String owner, Duration ttl) {
      return delegate.claim(fromId, toId, owner, ttl);
    }

    @Override
    public Optional<WorkerLease> renew(int workerId, String owner, Duration ttl,
        long lastTimestampMs, long storedAtLeastMs) {
      if (hanging) {
        try {
          released.await(); // a database that stopped answering mid-statement
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        throw new StoreUnavailableException("database unavailable: no answer", null);
      }
      return delegate.renew(workerId, owner, ttl, lastTimestampMs, storedAtLeastMs);
    }

    @Override
    public void release(int workerId, String owner, long lastTimestampMs) {
      delegate.release(workerId, owner, lastTimestampMs);
    }
  }

  @Test
  void reportLeaseTo_renewalHangs_lapseReportedByTheTimerAlone() throws Exception {
    HangingRenewals leases = new HangingRenewals();
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
      // The lease thread now hangs in its next renewal: no step reports anything from here on.
      leases.hang();
      Thread.sleep(4_000);
      try {
        assertTrue(!snowflake.generator().leaseValid(), "fenced 2.4 s after the last renewal");
        synchronized (seen) {
          assertTrue(seen.contains(true) && !seen.get(seen.size() - 1),
              "reported valid, then lapsed: " + seen.subList(Math.max(0, seen.size() - 5),
                  seen.size()));
        }
      } finally {
        leases.released.countDown();
      }
    }
  }
}
