package io.leaf.server.snowflake;

import com.google.common.base.Ticker;
import io.leaf.server.logging.WarnLimiter;
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
 * #release()}. The rules (the fence, the quarantine, the rewind rule) are {@link WorkerClaims}',
 * which client-held leases ({@link ClientLeases}) follow too; why they hold is told in the
 * package's documentation ({@code package-info.java}).
 *
 * <p>Each step is one call of {@link #step()}, which returns when to call it next; the owner
 * ({@link Snowflake}) runs it on a thread of its own, tests call it with a fake clock. A stored
 * timestamp beyond the layout's end is discarded at claim time and counted by {@link
 * #discardedFloors()}.
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
  private final Duration ttl;
  private final String owner;
  private final long renewEveryNanos;
  private final long quarantineNanos;

  private WorkerLease lease;

  /** The ceiling stored for the held lease (epoch millis): what a renewal must still find. */
  private long storedMs;

  /** While quarantined: the first timestamp IDs may have, and when issuing may start. */
  private long pendingFloorMs;

  private long pendingUntilNanos;

  /** When the last renewal (or claim) the database acknowledged was sent (monotonic). */
  private long ackSentNanos;

  private boolean active;
  private boolean released;
  private boolean warnedExhausted;
  private final WarnLimiter failureWarnings;

  /** Holds a lease in {@code store} under {@code settings} for {@code generator}. */
  public WorkerLeaseKeeper(
      WorkerLeaseStore store,
      SnowflakeGenerator generator,
      Ticker monotonic,
      LeaseSettings settings,
      String owner) {
    this(settings.claims(store, generator.layout()), generator, monotonic, owner);
  }

  /** Holds a lease under {@code claims}' rules for {@code generator}. */
  public WorkerLeaseKeeper(
      WorkerClaims claims, SnowflakeGenerator generator, Ticker monotonic, String owner) {
    this.claims = claims;
    this.generator = generator;
    this.monotonic = monotonic;
    this.ttl = claims.ttl();
    this.owner = owner;
    this.renewEveryNanos = claims.renewEveryNanos();
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
        generator.refuseWith(LeaseNotices.tableUnusable(e));
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
      return claims.retryNanos();
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
            claims.fromId(),
            claims.toId(),
            RANGE_FLAG);
        warnedExhausted = true;
      }
      return claims.retryNanos();
    }
    warnedExhausted = false;
    long sent = monotonic.read();
    Optional<WorkerClaims.Claim> confirmed = claims.confirm(claimed.get(), owner);
    long now = monotonic.read();
    if (confirmed.isEmpty()) {
      return claims.retryNanos();
    }
    long floor = confirmed.get().floorMs();
    long ceiling = confirmed.get().ceilingMs();
    lease = confirmed.get().lease();
    ackSentNanos = sent;
    storedMs = ceiling;
    pendingFloorMs = floor;
    pendingUntilNanos = now + quarantineNanos;
    active = false;
    if (claims.exclusive()) {
      log.info(
          "worker ID {} claimed (range {}-{}, {} {}) on a database no other process can"
              + " open: no earlier holder to wait out",
          lease.workerId(),
          claims.fromId(),
          claims.toId(),
          TTL_FLAG,
          ttl);
      return awaitQuarantine();
    }
    generator.refuseWith(LeaseNotices.quarantined(lease.workerId(), ttl));
    log.info(
        "worker ID {} claimed (range {}-{}, {} {}); IDs start in {} ms above {}",
        lease.workerId(),
        claims.fromId(),
        claims.toId(),
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
        sent + claims.validNanos(),
        lease.expiresMs(),
        LeaseNotices.fence(lease.workerId(), claims.validNanos(), ttl));
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
    generator.renewed(lease.workerId(), ceiling, sent + claims.validNanos(), lease.expiresMs());
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
    generator.revoke(LeaseNotices.lapsed(lease.workerId(), ttl));
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
      generator.revoke(LeaseNotices.lost(lost));
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
