package io.leaf.server.snowflake;

import com.google.common.base.Ticker;
import io.leaf.server.engine.LimitExceededException;
import io.leaf.server.store.StoreRejectedException;
import io.leaf.server.store.WorkerLease;
import io.leaf.server.store.WorkerLeaseStore;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds one worker lease for a {@link SnowflakeGenerator}: claims a free worker ID in the range,
 * renews it every third of the TTL, keeps claiming while none is free or the database is away,
 * and releases it on {@link #release()}. Each step is one call of {@link #step()}, which returns
 * when to call it next; the owner ({@link Snowflake}) runs it on a thread of its own, tests call it
 * with a fake clock.
 *
 * <p>The fence: a renewal sent at monotonic time {@code t} and acknowledged lets the generator
 * issue until {@code t + ttl - margin}; the database judges the lease from its own clock when it
 * ran the statement, which is later than {@code t}, so the server always stops before the
 * database could give the worker ID to another server. The margin (a fifth of the TTL) covers the
 * two clocks' rates differing. Before the first ID of a claimed worker the keeper stores a
 * ceiling (see {@link SnowflakeGenerator}), so a claim alone never lets the server issue.
 *
 * <p>Not thread-safe: {@link #step()} and {@link #release()} run on one thread at a time.
 */
public final class WorkerLeaseKeeper {

  private static final Logger log = LoggerFactory.getLogger(WorkerLeaseKeeper.class);
  static final String RANGE_FLAG = "--worker-id-range";
  static final String TTL_FLAG = "--worker-lease-ttl";

  private final WorkerLeaseStore store;
  private final SnowflakeGenerator generator;
  private final Ticker monotonic;
  private final int fromId;
  private final int toId;
  private final Duration ttl;
  private final String owner;
  private final long renewEveryNanos;
  private final long retryNanos;
  private final long validNanos;
  private WorkerLease lease;
  /** The stored ceiling of the held lease (epoch millis); the floor of the next holder. */
  private long floorMs;
  private boolean released;
  private boolean warnedExhausted;

  public WorkerLeaseKeeper(WorkerLeaseStore store, SnowflakeGenerator generator, Ticker monotonic,
      int fromId, int toId, Duration ttl, String owner) {
    this.store = store;
    this.generator = generator;
    this.monotonic = monotonic;
    this.fromId = fromId;
    this.toId = toId;
    this.ttl = ttl;
    this.owner = owner;
    long ttlNanos = ttl.toNanos();
    this.renewEveryNanos = ttlNanos / 3;
    this.retryNanos = Math.min(Duration.ofSeconds(1).toNanos(), ttlNanos / 10);
    this.validNanos = ttlNanos - ttlNanos / 5;
  }

  /**
   * Claims or renews as due; never throws.
   *
   * @return nanoseconds until the next step
   */
  public long step() {
    if (released) {
      return Long.MAX_VALUE;
    }
    try {
      return lease == null ? claim() : renew();
    } catch (RuntimeException e) {
      if (lease == null) {
        // A refusal that lasts (grants, a read-only database) is told as it is.
        generator.refuseWith(e instanceof StoreRejectedException ? e
            : new NoWorkerLeaseException("no worker lease: the lease table cannot be used now ("
                + e.getMessage() + "); the server keeps trying"));
      }
      log.warn("worker lease {} failed: {}", lease == null ? "claim" : "renewal of worker ID "
          + lease.workerId(), e.getMessage());
      return retryNanos;
    }
  }

  private long claim() {
    Optional<WorkerLease> claimed = store.claim(fromId, toId, owner, ttl);
    if (claimed.isEmpty()) {
      int size = toId - fromId + 1;
      generator.refuseWith(new LimitExceededException("no free worker ID in " + fromId + "-"
          + toId + ": every one is leased by another server; the server keeps trying", size,
          RANGE_FLAG));
      if (!warnedExhausted) {
        log.warn("no free worker ID in {}-{} ({}): snowflake IDs are refused until one is free",
            fromId, toId, RANGE_FLAG);
        warnedExhausted = true;
      }
      return retryNanos;
    }
    warnedExhausted = false;
    WorkerLease got = claimed.get();
    long floor = got.lastTimestampMs() + 1;
    // Store the ceiling before the first ID: a claim alone must never let this server issue.
    long sent = monotonic.read();
    long ceiling = Math.max(floor, generator.prepare(floor)) + ttl.toMillis()
        + SnowflakeGenerator.MAX_BORROW_MS;
    Optional<WorkerLease> confirmed = store.renew(got.workerId(), owner, ttl, ceiling);
    if (confirmed.isEmpty()) {
      return retryNanos;
    }
    lease = confirmed.get();
    floorMs = ceiling;
    generator.activate(lease.workerId(), floor, ceiling, sent + validNanos, lease.expiresMs(),
        fenceMessage(lease.workerId()));
    log.info("worker ID {} leased (range {}-{}, {} {}); IDs start above {}", lease.workerId(),
        fromId, toId, TTL_FLAG, ttl, floor - 1);
    return renewEveryNanos;
  }

  private long renew() {
    long sent = monotonic.read();
    long ceiling = Math.max(floorMs, generator.referenceMs() + ttl.toMillis()
        + SnowflakeGenerator.MAX_BORROW_MS);
    Optional<WorkerLease> renewed = store.renew(lease.workerId(), owner, ttl, ceiling);
    if (renewed.isEmpty()) {
      int lost = lease.workerId();
      lease = null;
      generator.revoke(new NoWorkerLeaseException("the lease of worker ID " + lost + " was"
          + " taken by another server; claiming another"));
      log.warn("worker ID {} is no longer this server's (its lease ran out and another server"
          + " claimed it); claiming another", lost);
      return 0;
    }
    lease = renewed.get();
    floorMs = ceiling;
    generator.renewed(lease.workerId(), ceiling, sent + validNanos, lease.expiresMs());
    return renewEveryNanos;
  }

  private String fenceMessage(int workerId) {
    return "the lease of worker ID " + workerId + " is not confirmed by the database within "
        + Duration.ofNanos(validNanos).toMillis() + " ms (" + TTL_FLAG + " " + ttl
        + " less a margin); the server stops issuing until it renews or claims a lease";
  }

  /** Stops issuing and gives the worker ID back, recording the last timestamp used. */
  public void release() {
    if (released) {
      return;
    }
    released = true;
    long last = generator.revoke(new NoWorkerLeaseException("server is shutting down"));
    if (lease != null) {
      try {
        store.release(lease.workerId(), owner, last);
        log.info("worker ID {} released (last timestamp {})", lease.workerId(), last);
      } catch (RuntimeException e) {
        log.warn("worker ID {} could not be released ({}); it is free again once its lease runs"
            + " out", lease.workerId(), e.getMessage());
      }
      lease = null;
    }
  }

  /** The lease held, if any (as last acknowledged). */
  public Optional<WorkerLease> lease() {
    return Optional.ofNullable(lease);
  }
}
