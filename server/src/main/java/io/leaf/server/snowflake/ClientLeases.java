package io.leaf.server.snowflake;

import com.google.common.base.Ticker;
import io.leaf.server.engine.LimitExceededException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker IDs clients hold through this server to make snowflake IDs themselves: at most {@code
 * max} at once, each claimed, fenced, quarantined and renewed under {@link WorkerClaims}' rules,
 * the ones the server's own lease follows, in the same lease table.
 *
 * <p>The client's side of the fence: a lease answered to a request the client sent at {@code t} is
 * valid until {@code t + validFor} on the client's monotonic clock; the database computed the
 * expiry later than {@code t}, so the client stops before the worker ID can be claimed again. The
 * server cannot see the client's wall clock, so it stores a ceiling from its own reference clock
 * (as for its own lease) and hands it to the client, which never issues above it: a client whose
 * clock runs more than the TTL ahead of the server's issues nothing.
 *
 * <p>A lease lives in this server's memory (its handle is a random secret): renewals must come back
 * to the same server; a lease not renewed within the TTL is forgotten (its row then ends by
 * itself). Thread-safe; {@link #lease}, {@link #renew} and {@link #release} block on the lease
 * store, so they run on a database thread.
 */
public final class ClientLeases {

  private static final Logger log = LoggerFactory.getLogger(ClientLeases.class);

  public static final String MAX_FLAG = "--max-client-leases";
  public static final int DEFAULT_MAX = 256;

  private final WorkerClaims claims;
  private final SnowflakeGenerator reference;
  private final Ticker monotonic;
  private final int max;
  private final Map<String, Held> leases = new ConcurrentHashMap<>();

  /** Claims under way: they count against {@code max} before they are in {@link #leases}. */
  private int claiming;

  /**
   * One lease as this server last stored it. Its database calls hold its lock; its fields are
   * volatile so that listing and forgetting never wait for a database call.
   */
  private static final class Held {
    final String owner;
    final int workerId;
    volatile long storedMs;
    volatile long floorMs;
    volatile long ackSentNanos;
    volatile long expiresMs;
    volatile boolean ended;

    Held(String owner, WorkerClaims.Claim claim, long ackSentNanos) {
      this.owner = owner;
      this.workerId = claim.lease().workerId();
      this.storedMs = claim.ceilingMs();
      this.floorMs = claim.floorMs();
      this.expiresMs = claim.lease().expiresMs();
      this.ackSentNanos = ackSentNanos;
    }
  }

  /**
   * A lease as the client receives it.
   *
   * @param validForMs the client stops this long after it sent the request, unless renewed
   * @param notBeforeMs the client starts issuing this long after the answer arrived (quarantine)
   * @param timestamps the timestamps its IDs may carry
   */
  public record Granted(
      int workerId,
      String leaseId,
      long validForMs,
      long notBeforeMs,
      Timestamps timestamps,
      SnowflakeLayout layout) {}

  /**
   * The timestamps a client's IDs may carry under its lease, in epoch milliseconds.
   *
   * @param floorMs the lowest timestamp its IDs may carry
   * @param ceilingMs the highest, until a renewal raises it
   */
  public record Timestamps(long floorMs, long ceilingMs) {}

  /** A lease a client holds, as the monitor shows it. */
  public record Listed(int workerId, long expiresMs, long ceilingMs) {}

  /**
   * @param claims the rules and store the server's own lease uses
   * @param reference the server's generator, whose reference clock the ceilings follow
   * @param max the most leases clients may hold through this server at once
   */
  public ClientLeases(
      WorkerClaims claims, SnowflakeGenerator reference, Ticker monotonic, int max) {
    this.claims = claims;
    this.reference = reference;
    this.monotonic = monotonic;
    this.max = max;
  }

  /**
   * Claims a worker ID for a client.
   *
   * @throws LimitExceededException {@code max} leases are held, or no worker ID is free
   * @throws NoWorkerLeaseException the claim lost a race; the client may try again
   */
  public Granted lease() {
    forgetEnded();
    synchronized (this) {
      if (leases.size() + claiming >= max) {
        throw new LimitExceededException(
            "clients hold " + max + " worker leases through this server already", max, MAX_FLAG);
      }
      claiming++;
    }
    try {
      String owner = "client:" + UUID.randomUUID();
      Optional<WorkerLease> taken = claims.take(owner);
      if (taken.isEmpty()) {
        throw claims.exhausted(" by a server or a client");
      }
      long sent = monotonic.read();
      Optional<WorkerClaims.Claim> claim = claims.confirm(taken.get(), owner);
      if (claim.isEmpty()) {
        throw new NoWorkerLeaseException(
            "worker ID " + taken.get().workerId() + " was claimed by another holder; try again");
      }
      Held held = new Held(owner, claim.get(), sent);
      // The claim's ceiling covers the quarantine from the floor; from the clock on (which matters
      // without a quarantine, where the floor is only what the last holder stored), as the
      // server's own lease stores before its first ID.
      long ceiling = claims.ceiling(held.storedMs, Math.max(held.floorMs, reference.referenceMs()));
      sent = monotonic.read();
      Optional<WorkerLease> stored = claims.renew(held.workerId, owner, ceiling, held.storedMs);
      if (stored.isEmpty()) {
        throw new NoWorkerLeaseException(
            "worker ID " + held.workerId + " was claimed by another holder; try again");
      }
      held.storedMs = ceiling;
      held.ackSentNanos = sent;
      held.expiresMs = stored.get().expiresMs();
      String leaseId = UUID.randomUUID().toString();
      leases.put(leaseId, held);
      log.info(
          "worker ID {} leased to a client; its IDs start above {}",
          held.workerId,
          held.floorMs - 1);
      return granted(leaseId, held, ms(claims.quarantineNanos()));
    } finally {
      synchronized (this) {
        claiming--;
      }
    }
  }

  /**
   * Renews a lease this server granted, raising its ceiling.
   *
   * @param lapsed the client's fence ended before it sent this renewal: a new claim's quarantine
   * @throws UnknownWorkerLeaseException this server does not know {@code leaseId}
   * @throws WorkerLeaseLostException the worker ID was taken or its row changed
   *     (FAILED_PRECONDITION)
   */
  public Granted renew(String leaseId, boolean lapsed) {
    Held held = find(leaseId);
    synchronized (held) {
      if (held.ended) {
        throw unknown();
      }
      long sent = monotonic.read();
      boolean requarantine = lapsed || claims.lapsed(sent, held.ackSentNanos);
      long ceiling = claims.ceiling(held.storedMs, Math.max(held.floorMs, reference.referenceMs()));
      Optional<WorkerLease> renewed =
          claims.renew(held.workerId, held.owner, ceiling, held.storedMs);
      if (renewed.isEmpty()) {
        held.ended = true;
        leases.remove(leaseId, held);
        log.warn(
            "worker ID {} held by a client is no longer its own (taken, or its row changed)",
            held.workerId);
        throw new WorkerLeaseLostException(
            "the lease of worker ID "
                + held.workerId
                + " was taken by another holder or its row changed; stop and lease again");
      }
      held.storedMs = ceiling;
      held.ackSentNanos = sent;
      held.expiresMs = renewed.get().expiresMs();
      if (requarantine) {
        held.floorMs = WorkerClaims.requarantineFloor(held.floorMs, renewed.get());
        return granted(leaseId, held, ms(claims.quarantineNanos()));
      }
      return granted(leaseId, held, 0);
    }
  }

  /** Gives a lease's worker ID back at once, keeping its stored ceiling; unknown: nothing. */
  public void release(String leaseId) {
    Held held = leases.remove(leaseId);
    if (held == null) {
      return;
    }
    synchronized (held) {
      if (!held.ended) {
        held.ended = true;
        claims.release(held.workerId, held.owner, held.storedMs);
        log.info("worker ID {} released by its client", held.workerId);
      }
    }
  }

  /** The leases clients hold now, by worker ID; never waits for the database. */
  public List<Listed> held() {
    forgetEnded();
    List<Listed> out = new ArrayList<>();
    for (Held h : leases.values()) {
      if (!h.ended) {
        out.add(new Listed(h.workerId, h.expiresMs, h.storedMs));
      }
    }
    out.sort(Comparator.comparingInt(Listed::workerId));
    return out;
  }

  public int max() {
    return max;
  }

  /** Leases not renewed for a TTL: their clients have stopped, their rows end by themselves. */
  private void forgetEnded() {
    long now = monotonic.read();
    long ttl = claims.ttl().toNanos();
    leases
        .entrySet()
        .removeIf(
            e -> {
              Held h = e.getValue();
              if (now - (h.ackSentNanos + ttl) >= 0) {
                // Its client's fence ended before this: a renewal now finds no lease.
                h.ended = true;
              }
              return h.ended;
            });
  }

  private Held find(String leaseId) {
    Held held = leaseId == null ? null : leases.get(leaseId);
    if (held == null) {
      throw unknown();
    }
    return held;
  }

  private static UnknownWorkerLeaseException unknown() {
    return new UnknownWorkerLeaseException(
        "lease_id is not a worker lease this server holds (ended, released, or granted by another"
            + " server or before a restart); lease again");
  }

  private Granted granted(String leaseId, Held held, long notBeforeMs) {
    return new Granted(
        held.workerId,
        leaseId,
        claims.validNanos() / 1_000_000,
        notBeforeMs,
        new Timestamps(held.floorMs, held.storedMs),
        claims.layout());
  }

  /** Nanoseconds as whole milliseconds, rounded up: a wait is never shortened. */
  private static long ms(long nanos) {
    return (nanos + 999_999) / 1_000_000;
  }
}
