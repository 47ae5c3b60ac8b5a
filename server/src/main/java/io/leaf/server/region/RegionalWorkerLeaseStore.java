package io.leaf.server.region;

import io.leaf.server.snowflake.WorkerLease;
import io.leaf.server.snowflake.WorkerLeaseStore;
import java.time.Duration;
import java.util.Optional;

/**
 * The {@link WorkerLeaseStore} a server's snowflake side leases from: no worker ID is claimed or
 * renewed before the server's region check ({@link RegionalSegmentStore#verify}) has passed.
 * Thread-safe.
 *
 * <p>Each claim and renewal reads the database's region row again ({@link
 * RegionalSegmentStore#recheck}), so a server whose {@code --region} contradicts its database never
 * claims a worker ID there, even when the database was down at start, and one whose row changed
 * later stops renewing: its lease lapses within its TTL and it stops issuing.
 */
public final class RegionalWorkerLeaseStore implements WorkerLeaseStore {

  private final WorkerLeaseStore leases;
  private final RegionalSegmentStore region;

  public RegionalWorkerLeaseStore(WorkerLeaseStore leases, RegionalSegmentStore region) {
    this.leases = leases;
    this.region = region;
  }

  @Override
  public void createSchemaIfMissing() {
    leases.createSchemaIfMissing();
  }

  @Override
  public Optional<WorkerLease> claim(int fromId, int toId, String owner, Duration ttl) {
    region.recheck();
    return leases.claim(fromId, toId, owner, ttl);
  }

  @Override
  public Optional<WorkerLease> renew(
      int workerId, String owner, Duration ttl, long lastTimestampMs, long storedAtLeastMs) {
    region.recheck();
    return leases.renew(workerId, owner, ttl, lastTimestampMs, storedAtLeastMs);
  }

  @Override
  public void release(int workerId, String owner, long lastTimestampMs) {
    leases.release(workerId, owner, lastTimestampMs);
  }
}
