package io.leaf.server.snowflake;

import java.time.Duration;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * {@link WorkerLeaseStore} in memory, for tests and in-process servers: the same rules as the
 * table, with {@code clock} standing for the database's clock.
 *
 * <p>Tests may share one store between several servers to play servers racing on one database.
 * Thread-safe (one lock).
 */
public final class MemoryWorkerLeaseStore implements WorkerLeaseStore {

  private final InstantSource clock;
  private final Map<Integer, WorkerLease> rows = new HashMap<>();
  private volatile RuntimeException failure;

  public MemoryWorkerLeaseStore(InstantSource clock) {
    this.clock = clock;
  }

  /** Every call fails with {@code e} until set back to null (an outage). */
  public void failWith(RuntimeException e) {
    this.failure = e;
  }

  @Override
  public void createSchemaIfMissing() {}

  @Override
  public synchronized Optional<WorkerLease> claim(
      int fromId, int toId, String owner, Duration ttl) {
    fail();
    long now = clock.millis();
    for (int id = fromId; id <= toId; id++) {
      WorkerLease row = rows.get(id);
      if (row == null || row.expiresMs() < now) {
        WorkerLease lease =
            new WorkerLease(
                id, owner, now + ttl.toMillis(), row == null ? 0 : row.lastTimestampMs());
        rows.put(id, lease);
        return Optional.of(lease);
      }
    }
    return Optional.empty();
  }

  @Override
  public synchronized Optional<WorkerLease> renew(
      int workerId, String owner, Duration ttl, long lastTimestampMs, long storedAtLeastMs) {
    fail();
    WorkerLease row = rows.get(workerId);
    if (row == null || !row.owner().equals(owner) || row.lastTimestampMs() < storedAtLeastMs) {
      return Optional.empty();
    }
    WorkerLease renewed =
        new WorkerLease(
            workerId,
            owner,
            clock.millis() + ttl.toMillis(),
            Math.max(row.lastTimestampMs(), lastTimestampMs));
    rows.put(workerId, renewed);
    return Optional.of(renewed);
  }

  @Override
  public synchronized void release(int workerId, String owner, long lastTimestampMs) {
    fail();
    WorkerLease row = rows.get(workerId);
    if (row != null && row.owner().equals(owner)) {
      rows.put(workerId, new WorkerLease(workerId, owner, 0, lastTimestampMs));
    }
  }

  /** Deletes or replaces the row of {@code workerId} as an operator or a restore would. */
  public synchronized void rewrite(int workerId, WorkerLease row) {
    if (row == null) {
      rows.remove(workerId);
    } else {
      rows.put(workerId, row);
    }
  }

  /** The row of {@code workerId} as stored, for tests. */
  public synchronized Optional<WorkerLease> row(int workerId) {
    return Optional.ofNullable(rows.get(workerId));
  }

  private void fail() {
    RuntimeException e = failure;
    if (e != null) {
      throw e;
    }
  }
}
