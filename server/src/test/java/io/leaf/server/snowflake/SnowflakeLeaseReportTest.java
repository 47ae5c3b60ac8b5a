package io.leaf.server.snowflake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.testing.FakeTicker;
import io.leaf.server.testing.FakeWallClock;
import io.leaf.server.testing.ManualScheduler;
import io.leaf.server.testing.ManualSnowflakeClocks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The lease's state reported to the health service: often, and never at the lease's expense. The
 * lease steps and the timer run on manual schedulers over fake clocks.
 */
class SnowflakeLeaseReportTest {

  /** TTL 1.5 s: renewed every 500 ms, fenced 1.2 s after the last acknowledged renewal. */
  private static final Duration TTL = Duration.ofMillis(1_500);

  private final ManualSnowflakeClocks clocks = new ManualSnowflakeClocks(1_750_000_000_000L);
  private final FakeWallClock wall = clocks.wall;
  private final FakeTicker ticker = clocks.ticker;
  private final CountedRenewals leases = new CountedRenewals(wall);
  private final ManualScheduler leaseSteps = clocks.leaseSteps;
  private final ManualScheduler timer = clocks.timer;

  private Snowflake snowflake() {
    return new Snowflake(
        leases,
        SnowflakeLayout.DEFAULT,
        new Snowflake.Workers(0, 0, TTL),
        new Snowflake.Clocks(wall, ticker),
        new Snowflake.Threads(leaseSteps, timer));
  }

  @Test
  void reportLeaseTo_reportThatThrows_renewalsGoOnAndReportsKeepComing() {
    AtomicInteger reports = new AtomicInteger();
    try (Snowflake snowflake = snowflake()) {
      snowflake.reportLeaseTo(
          () -> {
            reports.incrementAndGet();
            throw new IllegalStateException("call already cancelled");
          });
      snowflake.start();
      // Issuing starts after the claim's quarantine (the TTL plus 1 s).
      clocks.elapse(WorkerLeaseKeeper.quarantine(TTL).plusMillis(100), true);
      assertTrue(snowflake.generator().leaseValid(), "leased");
      int atStart = leases.renewals.get();
      int reportsAtStart = reports.get();
      // Four renewals take the lease past its first fence.
      clocks.elapse(Duration.ofMillis(2_100), true);
      int renewed = leases.renewals.get() - atStart;
      assertTrue(
          renewed >= 4, "renewals go on although every report throws: " + renewed + " renewals");
      // Each lease step renews once and reports once: what the renewals do not account for came
      // from the timer, which reports every 250 ms (2,100 ms: 8 times).
      int fromTimer = reports.get() - reportsAtStart - renewed;
      assertTrue(
          fromTimer >= (int) (2_100 / Snowflake.REPORT_EVERY_MS),
          "timer reports keep"
              + " coming every "
              + Snowflake.REPORT_EVERY_MS
              + " ms: "
              + fromTimer);
      assertTrue(snowflake.generator().leaseValid(), "renewed past the first fence");
      assertEquals(0, snowflake.generator().workerId());
    }
  }

  @Test
  void reportLeaseTo_leaseThreadStalls_lapseReportedByTheTimerAlone() {
    List<Boolean> seen = new ArrayList<>();
    try (Snowflake snowflake = snowflake()) {
      snowflake.reportLeaseTo(() -> seen.add(snowflake.generator().leaseValid()));
      snowflake.start();
      clocks.elapse(WorkerLeaseKeeper.quarantine(TTL).plusMillis(100), true);
      assertTrue(seen.get(seen.size() - 1), "leased, and reported so");
      // The lease thread now hangs (a database that stopped answering mid-statement): no step
      // runs, so none reports; time goes on.
      int renewals = leases.renewals.get();
      clocks.elapse(TTL, false);
      assertEquals(renewals, leases.renewals.get(), "no renewal while the lease thread hangs");
      assertFalse(seen.get(seen.size() - 1), "the lapse reported by the timer");
      assertFalse(snowflake.generator().leaseValid(), "fenced 1.2 s after the last renewal");
    }
  }

  /** Leases in memory whose renewals are counted. */
  private static final class CountedRenewals implements WorkerLeaseStore {
    final MemoryWorkerLeaseStore delegate;
    final AtomicInteger renewals = new AtomicInteger();

    CountedRenewals(FakeWallClock database) {
      this.delegate = new MemoryWorkerLeaseStore(database);
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
    public Optional<WorkerLease> renew(
        int workerId, String owner, Duration ttl, long lastTimestampMs, long storedAtLeastMs) {
      renewals.incrementAndGet();
      return delegate.renew(workerId, owner, ttl, lastTimestampMs, storedAtLeastMs);
    }

    @Override
    public void release(int workerId, String owner, long lastTimestampMs) {
      delegate.release(workerId, owner, lastTimestampMs);
    }
  }
}
