package io.leaf.server.snowflake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.base.Ticker;
import io.leaf.server.store.MemoryWorkerLeaseStore;
import io.leaf.server.store.StoreUnavailableException;
import io.leaf.server.store.WorkerLease;
import io.leaf.server.store.WorkerLeaseStore;
import io.leaf.server.testing.Poll;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/** The lease's state reported to the health service: often, and never at the lease's expense. */
class SnowflakeLeaseReportTest {

  @Test
  void reportLeaseTo_reportThatThrows_renewalsGoOnAndReportsKeepComing() throws Exception {
    ControlledRenewals leases = new ControlledRenewals();
    AtomicInteger reports = new AtomicInteger();
    // TTL 1.5 s: renewed every 500 ms, fenced 1.2 s after the last acknowledged renewal.
    try (Snowflake snowflake = new Snowflake(leases, SnowflakeLayout.DEFAULT, 0, 0,
        Duration.ofMillis(1_500), InstantSource.system(), Ticker.systemTicker())) {
      snowflake.reportLeaseTo(() -> {
        reports.incrementAndGet();
        throw new IllegalStateException("call already cancelled");
      });
      snowflake.start();
      // Issuing starts after the claim's quarantine (the TTL plus 1 s).
      assertTrue(Poll.until(() -> snowflake.generator().leaseValid(), Duration.ofSeconds(10)),
          "leased");
      int atStart = leases.renewals.get();
      // A lease step reports once and renews at least once before it: what the renewals do not
      // account for came from the timer. Four renewals take the lease past its first fence.
      assertTrue(Poll.until(() -> reports.get() >= leases.renewals.get() + 3
          && leases.renewals.get() >= atStart + 4, Duration.ofSeconds(20)),
          "renewals and timer reports go on although every report throws: " + reports
              + " reports, " + leases.renewals + " renewals");
      assertTrue(snowflake.generator().leaseValid(), "renewed past the first fence");
      assertEquals(0, snowflake.generator().workerId());
    }
  }

  /**
   * Leases in memory whose renewals are counted and, once {@link #hang} is called, wait until
   * released.
   */
  private static final class ControlledRenewals implements WorkerLeaseStore {
    final MemoryWorkerLeaseStore delegate = new MemoryWorkerLeaseStore(InstantSource.system());
    final AtomicInteger renewals = new AtomicInteger();
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
      renewals.incrementAndGet();
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
    ControlledRenewals leases = new ControlledRenewals();
    List<Boolean> seen = new ArrayList<>();
    try (Snowflake snowflake = new Snowflake(leases, SnowflakeLayout.DEFAULT, 0, 0,
        Duration.ofMillis(1_500), InstantSource.system(), Ticker.systemTicker())) {
      snowflake.reportLeaseTo(() -> {
        synchronized (seen) {
          seen.add(snowflake.generator().leaseValid());
        }
      });
      snowflake.start();
      BooleanSupplier lastReportedValid = () -> {
        synchronized (seen) {
          return !seen.isEmpty() && seen.get(seen.size() - 1);
        }
      };
      assertTrue(Poll.until(lastReportedValid, Duration.ofSeconds(5)), "leased, and reported so");
      // The lease thread now hangs in its next renewal: no step reports anything from here on.
      leases.hang();
      try {
        assertTrue(Poll.until(() -> !lastReportedValid.getAsBoolean(), Duration.ofSeconds(10)),
            "the lapse reported by the timer");
        assertTrue(!snowflake.generator().leaseValid(), "fenced 1.2 s after the last renewal");
      } finally {
        leases.released.countDown();
      }
    }
  }
}
