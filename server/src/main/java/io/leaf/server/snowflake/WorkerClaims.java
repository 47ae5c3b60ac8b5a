package io.leaf.server.snowflake;

import io.leaf.server.engine.LimitExceededException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rules every worker lease follows, whoever holds it (the server's own {@link
 * WorkerLeaseKeeper} or a client through {@link ClientLeases}). One instance per server, over the
 * store every lease of it goes through.
 *
 * <p>The rules: the range, the TTL, the floor and ceiling stored before the first ID, the
 * quarantine, the fence and the renewal that must find what its holder stored. The reasons behind
 * each rule are told in the package's documentation ({@code package-info.java}). Thread-safe: it
 * holds no state but a counter; each call is a few statements on the store (so never on a request's
 * thread).
 */
public final class WorkerClaims {

  private static final Logger log = LoggerFactory.getLogger(WorkerClaims.class);

  static final String RANGE_FLAG = "--worker-id-range";
  static final String TTL_FLAG = "--worker-lease-ttl";

  private final WorkerLeaseStore store;
  private final SnowflakeLayout layout;
  private final int fromId;
  private final int toId;
  private final Duration ttl;
  private final boolean exclusive;
  private final long renewEveryNanos;
  private final long retryNanos;
  private final long validNanos;
  private final long quarantineNanos;
  private final AtomicLong discardedFloors = new AtomicLong();

  /**
   * A claimed worker ID whose first ceiling is stored: its IDs carry timestamps from {@code
   * floorMs} to {@code ceilingMs}, once the quarantine has passed.
   */
  public record Claim(WorkerLease lease, long floorMs, long ceilingMs) {}

  /**
   * @param exclusive no other process can reach the lease table while this one runs (an exclusive
   *     embedded database): claims issue at once, without a quarantine
   */
  public WorkerClaims(
      WorkerLeaseStore store,
      SnowflakeLayout layout,
      int fromId,
      int toId,
      Duration ttl,
      boolean exclusive) {
    this.store = store;
    this.layout = layout;
    this.fromId = fromId;
    this.toId = toId;
    this.ttl = ttl;
    this.exclusive = exclusive;
    long ttlNanos = ttl.toNanos();
    this.renewEveryNanos = ttlNanos / 3;
    this.retryNanos = Math.min(Duration.ofSeconds(1).toNanos(), ttlNanos / 10);
    this.validNanos = ttlNanos - ttlNanos / 5;
    this.quarantineNanos = exclusive ? 0 : quarantine(ttl).toNanos();
  }

  /** How long a claimed worker ID is held back before its first ID: the TTL plus the borrow. */
  public static Duration quarantine(Duration ttl) {
    return ttl.plusMillis(SnowflakeGenerator.MAX_BORROW_MS);
  }

  /**
   * Claims a free worker ID of the range for {@code owner} (one conditional write).
   *
   * @return empty when every worker ID of the range is held
   */
  Optional<WorkerLease> take(String owner) {
    return store.claim(fromId, toId, owner, ttl);
  }

  /** Why nothing can be claimed: every worker ID of the range is held. */
  LimitExceededException exhausted(String more) {
    return new LimitExceededException(
        "no free worker ID in " + fromId + "-" + toId + ": every one is leased" + more,
        toId - fromId + 1,
        RANGE_FLAG);
  }

  /**
   * Fixes the floor of a worker ID just {@link #take}n (above what earlier holders stored, and
   * unless exclusive above the database's time at the claim plus the quarantine) and stores the
   * first ceiling before any ID.
   *
   * @return empty when the row changed in between (another holder won it)
   */
  Optional<Claim> confirm(WorkerLease got, String owner) {
    long stored = got.lastTimestampMs();
    if (stored > layout.maxTimestampMs()) {
      discardedFloors.incrementAndGet();
      log.warn(
          "worker ID {}: the stored timestamp {} is beyond the layout's end ({}); no ID can have"
              + " that time, so it is discarded (metric leaf_snowflake_discarded_floors_total)",
          got.workerId(),
          stored,
          layout.maxTimestampMs());
      stored = 0;
    }
    // The claim's own expiry is the database's time at the claim plus the TTL; on an exclusive
    // database no holder can be running, and what the last one stored is above all it issued.
    long floor =
        exclusive
            ? stored + 1
            : Math.max(stored + 1, got.expiresMs() + SnowflakeGenerator.MAX_BORROW_MS);
    long ceiling = floor + quarantine(ttl).toMillis() + SnowflakeGenerator.MAX_BORROW_MS;
    return store
        .renew(got.workerId(), owner, ttl, ceiling, got.lastTimestampMs())
        .map(lease -> new Claim(lease, floor, ceiling));
  }

  /** The ceiling a holder whose IDs start from {@code fromMs} stores: never below what it did. */
  long ceiling(long storedMs, long fromMs) {
    return Math.max(storedMs, fromMs + ttl.toMillis() + SnowflakeGenerator.MAX_BORROW_MS);
  }

  /**
   * Renews {@code owner}'s lease storing {@code ceiling}, only while its row still holds {@code
   * storedMs}; empty: the worker ID is lost (taken, or its row deleted or moved back).
   */
  Optional<WorkerLease> renew(int workerId, String owner, long ceiling, long storedMs) {
    return store.renew(workerId, owner, ttl, ceiling, storedMs);
  }

  /**
   * Whether a fence's length passed between the last acknowledged renewal (sent at {@code
   * ackSentNanos}) and a renewal sent at {@code sentNanos}: that renewal counts as a new claim.
   */
  boolean lapsed(long sentNanos, long ackSentNanos) {
    return sentNanos - (ackSentNanos + validNanos) >= 0;
  }

  /** The floor after a renewal that counts as a new claim: above the database's time now. */
  static long requarantineFloor(long floorMs, WorkerLease renewed) {
    return Math.max(floorMs, renewed.expiresMs() + SnowflakeGenerator.MAX_BORROW_MS);
  }

  /** Gives the worker ID back, storing {@code lastTimestampMs}. */
  void release(int workerId, String owner, long lastTimestampMs) {
    store.release(workerId, owner, lastTimestampMs);
  }

  public Duration ttl() {
    return ttl;
  }

  public SnowflakeLayout layout() {
    return layout;
  }

  int fromId() {
    return fromId;
  }

  int toId() {
    return toId;
  }

  boolean exclusive() {
    return exclusive;
  }

  /** How long a lease is known valid after its renewal was sent: the TTL less a fifth. */
  long validNanos() {
    return validNanos;
  }

  long renewEveryNanos() {
    return renewEveryNanos;
  }

  long retryNanos() {
    return retryNanos;
  }

  /** The quarantine by the monotonic clock; 0 on an exclusive database. */
  long quarantineNanos() {
    return quarantineNanos;
  }

  /** Stored timestamps discarded at claim time because they lay beyond the layout's end. */
  public long discardedFloors() {
    return discardedFloors.get();
  }
}
