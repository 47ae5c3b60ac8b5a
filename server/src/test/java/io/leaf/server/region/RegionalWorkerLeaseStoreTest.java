package io.leaf.server.region;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.snowflake.MemoryWorkerLeaseStore;
import io.leaf.server.snowflake.WorkerLease;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.testing.FakeWallClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RegionalWorkerLeaseStoreTest {

  private static final Duration TTL = Duration.ofSeconds(10);

  private final FakeWallClock clock = new FakeWallClock(1_700_000_000_000L);
  private final MemorySegmentStore tags = new MemorySegmentStore();
  private final MemoryRegionStore regions = new MemoryRegionStore(tags);
  private final MemoryWorkerLeaseStore leases = new MemoryWorkerLeaseStore(clock);

  @Test
  void claim_regionContradictsDatabase_refusedAndNothingLeased() {
    regions.claim(new StoredRegion("high-bits", 0, 2));
    RegionalWorkerLeaseStore store =
        new RegionalWorkerLeaseStore(
            leases, new RegionalSegmentStore(tags, Region.of(1, 2), regions));

    assertThrows(
        RegionMismatchException.class,
        () -> store.claim(512, 1023, "a", TTL),
        "no worker ID before the region check passed");
    assertEquals(
        512,
        leases.claim(512, 1023, "b", TTL).orElseThrow().workerId(),
        "the refused claim leased nothing");
  }

  @Test
  void renew_regionClaimedAfterServerWithoutRegionLeased_refused() {
    RegionalWorkerLeaseStore store =
        new RegionalWorkerLeaseStore(leases, new RegionalSegmentStore(tags, Region.NONE, regions));
    WorkerLease lease = store.claim(0, 1023, "a", TTL).orElseThrow();
    regions.claim(new StoredRegion("high-bits", 1, 2));

    RegionMismatchException e =
        assertThrows(
            RegionMismatchException.class,
            () -> store.renew(lease.workerId(), "a", TTL, 0, 0),
            "the lease is not renewed once the database records a region");
    assertTrue(e.getMessage().contains("--region 1/2"), e.getMessage());
  }

  @Test
  void renew_rowDeletedUnderRegionServer_refused() {
    RegionalSegmentStore regional = new RegionalSegmentStore(tags, Region.of(1, 2), regions);
    RegionalWorkerLeaseStore store = new RegionalWorkerLeaseStore(leases, regional);
    WorkerLease lease = store.claim(512, 1023, "a", TTL).orElseThrow();
    regions.delete();

    assertThrows(
        RegionMismatchException.class,
        () -> store.renew(lease.workerId(), "a", TTL, 0, 0),
        "a deleted row stops renewals");
  }
}
