package io.leaf.server.snowflake;

import java.time.Duration;

/**
 * Where a {@link WorkerLeaseKeeper} claims its worker ID and for how long: the range {@code
 * fromId}–{@code toId}, the lease's TTL, and whether the lease table is exclusive.
 *
 * @param exclusive no other process can reach the lease table while this one runs (an exclusive
 *     embedded database): claims issue at once, without a quarantine
 */
public record LeaseSettings(int fromId, int toId, Duration ttl, boolean exclusive) {

  /** A range on a lease table other servers may share: claims wait out the quarantine. */
  public static LeaseSettings shared(int fromId, int toId, Duration ttl) {
    return new LeaseSettings(fromId, toId, ttl, false);
  }

  /** The rules of these settings over {@code store}, for IDs of {@code layout}. */
  WorkerClaims claims(WorkerLeaseStore store, SnowflakeLayout layout) {
    return new WorkerClaims(store, layout, fromId, toId, ttl, exclusive);
  }
}
