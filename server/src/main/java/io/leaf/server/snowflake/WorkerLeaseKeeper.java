package io.leaf.server.snowflake;

import com.google.common.base.Ticker;
import io.leaf.server.logging.WarnLimiter;
import io.leaf.server.store.StoreRejectedException;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds one worker lease for a {@link SnowflakeGenerator}, letting it issue only while no other
 * server can be issuing with the same worker ID.
 *
 * <p>It claims a free worker ID in the range, lets the generator issue with it only once any
 * earlier holder has certainly stopped, renews it every third of the TTL, and releases it on {@link
 * #release()}.
 *
 * <p>Each step is one call of {@link #step()}, which returns when to call it next; the owner
 * ({@link Snowflake}) runs it on a thread of its own, tests call it with a fake clock.
 *
 * <p>The fence: a renewal sent at monotonic time {@code t} and acknowledged lets the generator
 * issue until {@code t + ttl - margin}; the database judges the lease from its own clock when it
 * ran the statement, which is later than {@code t}, so the server always stops before the database
 * could give the worker ID to another server. The margin (a fifth of the TTL) covers the two
 * clocks' rates differing. Before the first ID of a claimed worker the keeper stores a ceiling (see
 * {@link SnowflakeGenerator}), so a claim alone never lets the server issue.
 *
 * <p>The rewind rule: the lease table may lose or rewind a row (a restored backup, a promoted
 * lagging replica, an operator's DELETE) while another server still holds the worker ID, so no row
 * is trusted to prove the worker free. A claim is held back ("quarantined") for the TTL plus {@link
 * SnowflakeGenerator#MAX_BORROW_MS} by the monotonic clock: any earlier holder's own fence has
 * ended by then (its last renewal came before the claim). Its IDs start above the stored timestamp
 * and above the database's time at the claim plus the same span, which is above any timestamp an
 * earlier holder could have reached while its clock was within a fifth of the TTL of the
 * database's. A holder renews only a row that still holds at least the ceiling it stored; a row
 * deleted, zeroed or rewound under it ends its lease at its next renewal. A renewal that succeeds
 * only after the holder's own fence lapsed counts as a new claim (the row may have been put back to
 * this holder's own old copy after another server claimed it).
 *
 * <p>An exclusive database (an embedded H2 that no other process can open while this one has it)
 * has no other holder to wait out: the only earlier holders were processes that had the database
 * before this one, and they are gone. There a claim starts issuing at once, above the stored
 * ceiling, which every holder stores before issuing.
 *
 * <p>A stored timestamp beyond the layout's end (a clock glitch) cannot be the time of any ID
 * issued, so it is discarded at claim time with a warning and {@link #discardedFloors()} counts it.
 *
 * <p>The rules themselves are {@link WorkerClaims}', which client-held leases ({@link
 * ClientLeases}) follow too; this class holds one lease for the server's own generator.
 *
 * <p>Not thread-safe: {@link #step()} and {@link #release()} run on one thread at a time.
 */
public final class WorkerLeaseKeeper {

  private static final Logger log = LoggerFactory.getLogger(WorkerLeaseKeeper.class);
  static final String RANGE_FLAG = WorkerClaims.RANGE_FLAG;
  static final String TTL_FLAG = WorkerClaims.TTL_FLAG;

  private final WorkerClaims claims;
  private final SnowflakeGenerator generator;
  private final Ticker monotonic;
  private final int fromId;
  private final int toId;
  private final Duration ttl;
  private final String owner;
  private final long renewEveryNanos;
  private final long retryNanos;
  private final long validNanos;
  private final long quarantineNanos;

  /** No other server can hold a worker ID of this database: no quarantine. */
  private final boolean exclusive;

  private WorkerLease lease;

  /** The ceiling stored for the held lease (epoch millis): what a renewal must still find. */
  private long storedMs;

  /** While quarantined: the first timestamp IDs may have, and when issuing may start. */
  private long pendingFloorMs;

  private long pendingUntilNanos;

  /**
   * When the last renewal (or claim) the database acknowledged was sent, by the monotonic clock.
   */
  private long ackSentNanos;

  private boolean active;
  private boolean released;
  private boolean warnedExhausted;
  private final WarnLimiter failureWarnings;

  public WorkerLeaseKeeper(
      WorkerLeaseStore store,
      SnowflakeGenerator generator,
      Ticker monotonic,
      int fromId,
      int toId,
      Duration ttl,
      String owner) {
    this(store, generator, monotonic, fromId, toId, ttl, owner, false);
  }

  /**
   * @param exclusive no other process can reach the lease table while this one runs (an exclusive
   *     embedded database): claims issue at once, without a quarantine
   */
  public WorkerLeaseKeeper(
      WorkerLeaseStore store,
      SnowflakeGenerator generator,
      Ticker monotonic,
      int fromId,
      int toId,
      Duration ttl,
      String owner,
      boolean exclusive) {
    this(
        new WorkerClaims(store, generator.layout(), fromId, toId, ttl, exclusive),
        generator,
        monotonic,
        owner);
  }

  /** Holds a lease under {@code claims}' rules for {@code generator}. */
  public WorkerLeaseKeeper(
      WorkerClaims claims, SnowflakeGenerator generator, Ticker monotonic, String owner) {
    this.claims = claims;
    this.exclusive = claims.exclusive();
    this.generator = generator;
    this.monotonic = monotonic;
    this.fromId = claims.fromId();
    this.toId = claims.toId();
    this.ttl = claims.ttl();
    this.owner = owner;
    this.renewEveryNanos = claims.renewEveryNanos();
    this.retryNanos = claims.retryNanos();
    this.validNanos = claims.validNanos();
    this.quarantineNanos = claims.quarantineNanos();
    this.failureWarnings = new WarnLimiter(monotonic, WarnLimiter.ONCE_A_MINUTE);
  }

  /** How long a claimed worker ID is held back before its first ID: the TTL plus the borrow. */
  public static Duration quarantine(Duration ttl) {
    return WorkerClaims.quarantine(ttl);
  }

  /**
   * Claims, waits out the quarantine, or renews as due; never throws.
   *
   * @return nanoseconds until the next step
   */
  public long step() {
    if (released) {
      return Long.MAX_VALUE;
    }
    try {
      long next = lease == null ? claim() : active ? renew() : awaitQuarantine();
      failureWarnings.reset();
      return next;
    } catch (RuntimeException e) {
      if (lease == null) {
        // A refusal that lasts (grants, a read-only database) is told as it is.
        generator.refuseWith(
            e instanceof StoreRejectedException
                ? e
                : new NoWorkerLeaseException(
                    "no worker lease: the lease table cannot be used now ("
                        + e.getMessage()
                        + "); the server keeps trying"));
      }
      // Retried every second or so through an outage: one line a minute says it all.
      long skipped = failureWarnings.acquire();
      if (skipped >= 0) {
        log.warn(
            "worker lease {} failed: {}{}",
            lease == null ? "claim" : "renewal of worker ID " + lease.workerId(),
            e.getMessage(),
            WarnLimiter.heldBack(skipped));
      }
      return retryNanos;
    }
  }

  private long claim() {
    Optional<WorkerLease> claimed = claims.take(owner);
    if (claimed.isEmpty()) {
      generator.refuseWith(
          claims.exhausted(" by another server or a client; the server keeps trying"));
      if (!warnedExhausted) {
        log.warn(
            "no free worker ID in {}-{} ({}): snowflake IDs are refused until one is free",
            fromId,
            toId,
            RANGE_FLAG);
        warnedExhausted = true;
      }
      return retryNanos;
    }
    warnedExhausted = false;
    long sent = monotonic.read();
    Optional<WorkerClaims.Claim> confirmed = claims.confirm(claimed.get(), owner);
    long now = monotonic.read();
    if (confirmed.isEmpty()) {
      return retryNanos;
    }
    long floor = confirmed.get().floorMs();
    long ceiling = confirmed.get().ceilingMs();
    lease = confirmed.get().lease();
    ackSentNanos = sent;
    storedMs = ceiling;
    pendingFloorMs = floor;
    pendingUntilNanos = now + quarantineNanos;
    active = false;
    if (exclusive) {
      log.info(
          "worker ID {} claimed (range {}-{}, {} {}) on a database no other process can"
              + " open: no earlier holder to wait out",
          lease.workerId(),
          fromId,
          toId,
          TTL_FLAG,
          ttl);
      return awaitQuarantine();
    }
    generator.refuseWith(
        new NoWorkerLeaseException(
            "worker ID "
                + lease.workerId()
                + " is claimed; its IDs start "
                + quarantine(ttl).toMillis()
                + " ms after the claim ("
                + TTL_FLAG
                + " "
                + ttl
                + " plus "
                + SnowflakeGenerator.MAX_BORROW_MS
                + " ms), once any earlier holder has certainly stopped"));
    log.info(
        "worker ID {} claimed (range {}-{}, {} {}); IDs start in {} ms above {}",
        lease.workerId(),
        fromId,
        toId,
        TTL_FLAG,
        ttl,
        quarantine(ttl).toMillis(),
        floor - 1);
    return Math.min(renewEveryNanos, quarantineNanos);
  }

  /** Holds the claimed row until the quarantine ends, then starts issuing. */
  private long awaitQuarantine() {
    long sent = monotonic.read();
    boolean lapsed = lapsed(sent);
    if (lapsed || sent - pendingUntilNanos < 0) {
      if (!renewStored(storedMs, sent)) {
        return 0;
      }
      if (lapsed) {
        return requarantine();
      }
      long left = pendingUntilNanos - monotonic.read();
      return Math.max(0, Math.min(renewEveryNanos, left));
    }
    long reference = generator.prepare(pendingFloorMs);
    long ceiling = claims.ceiling(storedMs, Math.max(pendingFloorMs, reference));
    if (!renewStored(ceiling, sent)) {
      return 0;
    }
    active = true;
    generator.activate(
        lease.workerId(),
        pendingFloorMs,
        ceiling,
        sent + validNanos,
        lease.expiresMs(),
        fenceMessage(lease.workerId()));
    log.info("worker ID {} leased; IDs start above {}", lease.workerId(), pendingFloorMs - 1);
    return renewEveryNanos;
  }

  private long renew() {
    long sent = monotonic.read();
    boolean lapsed = lapsed(sent);
    long ceiling = claims.ceiling(storedMs, generator.referenceMs());
    if (!renewStored(ceiling, sent)) {
      return 0;
    }
    if (lapsed) {
      return requarantine();
    }
    generator.renewed(lease.workerId(), ceiling, sent + validNanos, lease.expiresMs());
    return renewEveryNanos;
  }

  /**
   * Whether a fence's length passed since the last acknowledged renewal was sent: the database may
   * have judged the lease ended, another server claimed it, and the row been put back since (a
   * restored backup holding this server's own row), so a renewal that succeeds now proves nothing
   * about the time between.
   */
  private boolean lapsed(long sentNanos) {
    return claims.lapsed(sentNanos, ackSentNanos);
  }

  /**
   * Treats a renewal after a lapse as a new claim: nothing is issued until the quarantine has
   * passed again, and then only above the database's time now plus the quarantine.
   */
  private long requarantine() {
    generator.revoke(
        new NoWorkerLeaseException(
            "the lease of worker ID "
                + lease.workerId()
                + " lapsed before it was renewed; its IDs start again "
                + quarantine(ttl).toMillis()
                + " ms after the renewal, once any other holder has certainly stopped"));
    active = false;
    pendingFloorMs = WorkerClaims.requarantineFloor(pendingFloorMs, lease);
    pendingUntilNanos = monotonic.read() + quarantineNanos;
    log.warn(
        "worker ID {}: renewed only after its lease lapsed; held back {} ms as a new claim",
        lease.workerId(),
        quarantine(ttl).toMillis());
    return Math.min(renewEveryNanos, quarantineNanos);
  }

  /**
   * Renews the held lease storing {@code ceiling}, if the row is still this server's and still
   * holds what it stored; else the lease is given up at once.
   */
  private boolean renewStored(long ceiling, long sentNanos) {
    Optional<WorkerLease> renewed = claims.renew(lease.workerId(), owner, ceiling, storedMs);
    if (renewed.isEmpty()) {
      int lost = lease.workerId();
      lease = null;
      active = false;
      generator.revoke(
          new NoWorkerLeaseException(
              "the lease of worker ID "
                  + lost
                  + " was"
                  + " taken by another server or its row changed; claiming another"));
      log.warn(
          "worker ID {} is no longer this server's (another server claimed it, or its row in"
              + " the lease table was deleted or moved back); claiming another",
          lost);
      return false;
    }
    lease = renewed.get();
    storedMs = ceiling;
    ackSentNanos = sentNanos;
    return true;
  }

  private String fenceMessage(int workerId) {
    return "the lease of worker ID "
        + workerId
        + " is not confirmed by the database within "
        + Duration.ofNanos(validNanos).toMillis()
        + " ms ("
        + TTL_FLAG
        + " "
        + ttl
        + " less a margin); the server stops issuing until it renews or claims a lease";
  }

  /** Stored timestamps discarded at claim time because they lay beyond the layout's end. */
  public long discardedFloors() {
    return claims.discardedFloors();
  }

  /** Stops issuing and gives the worker ID back, recording the last timestamp used. */
  public void release() {
    if (released) {
      return;
    }
    released = true;
    long issuedLast = generator.revoke(new NoWorkerLeaseException("server is shutting down"));
    if (lease != null) {
      // A worker still quarantined issued nothing: keep what its earlier holders left.
      long last = active ? issuedLast : Math.max(issuedLast, pendingFloorMs - 1);
      try {
        claims.release(lease.workerId(), owner, last);
        log.info("worker ID {} released (last timestamp {})", lease.workerId(), last);
      } catch (RuntimeException e) {
        log.warn(
            "worker ID {} could not be released ({}); it is free again once its lease runs"
                + " out",
            lease.workerId(),
            e.getMessage());
      }
      lease = null;
    }
  }

  /** The lease held, if any (as last acknowledged). */
  public Optional<WorkerLease> lease() {
    return Optional.ofNullable(lease);
  }
}
