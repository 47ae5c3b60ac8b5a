package io.leaf.server.snowflake;

import io.leaf.server.store.StoreRejectedException;
import java.time.Duration;

/** The refusals a {@link WorkerLeaseKeeper} hands its generator while it holds no valid lease. */
final class LeaseNotices {

  private LeaseNotices() {}

  /** The lease table failed before a lease was held. */
  static RuntimeException tableUnusable(RuntimeException cause) {
    if (cause instanceof StoreRejectedException) {
      // A refusal that lasts (grants, a read-only database) is told as it is.
      return cause;
    }
    return new NoWorkerLeaseException(
        "no worker lease: the lease table cannot be used now ("
            + cause.getMessage()
            + "); the server keeps trying");
  }

  /** A claimed worker ID waits out its quarantine. */
  static NoWorkerLeaseException quarantined(int workerId, Duration ttl) {
    return new NoWorkerLeaseException(
        "worker ID "
            + workerId
            + " is claimed; its IDs start "
            + WorkerClaims.quarantine(ttl).toMillis()
            + " ms after the claim ("
            + WorkerClaims.TTL_FLAG
            + " "
            + ttl
            + " plus "
            + SnowflakeGenerator.MAX_BORROW_MS
            + " ms), once any earlier holder has certainly stopped");
  }

  /** A renewal came only after the lease lapsed: held back as a new claim. */
  static NoWorkerLeaseException lapsed(int workerId, Duration ttl) {
    return new NoWorkerLeaseException(
        "the lease of worker ID "
            + workerId
            + " lapsed before it was renewed; its IDs start again "
            + WorkerClaims.quarantine(ttl).toMillis()
            + " ms after the renewal, once any other holder has certainly stopped");
  }

  /** The row is no longer this server's: another worker ID is claimed. */
  static NoWorkerLeaseException lost(int workerId) {
    return new NoWorkerLeaseException(
        "the lease of worker ID "
            + workerId
            + " was"
            + " taken by another server or its row changed; claiming another");
  }

  /** What the generator answers once the fence passes without a renewal. */
  static String fence(int workerId, long validNanos, Duration ttl) {
    return "the lease of worker ID "
        + workerId
        + " is not confirmed by the database within "
        + Duration.ofNanos(validNanos).toMillis()
        + " ms ("
        + WorkerClaims.TTL_FLAG
        + " "
        + ttl
        + " less a margin); the server stops issuing until it renews or claims a lease";
  }
}
