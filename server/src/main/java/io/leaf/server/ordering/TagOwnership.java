package io.leaf.server.ordering;

/**
 * What this server may do with one STRICT tag now: issue as its owner, wait out the previous owner,
 * forward to the owner it knows, or try to acquire; every answer is judged from times passed in
 * (the monotonic clock), never read inside.
 */
final class TagOwnership {
  /*
   * The lease lives half of --tag-lease-ttl without renewal; the wait-out is the other half, so a
   * dead owner's tag is served again about one TTL after its last renewal.
   *
   * The fence (the worker lease's rules, docs/snowflake.md): a renewal sent at t and acknowledged
   * lets this server issue until t + valid, valid = lease - lease/5; the database judged the lease
   * from a later moment, so this server stops before the database could hand the tag to another.
   *
   * Wait-out: an acquisition acknowledged at a starts issuing only at a + lease. Any earlier
   * owner's last acknowledged renewal was sent before a (the row was its own until then), so its
   * fence ended before a + lease, whatever the row showed: deleted, rewound or taken over.
   *
   * A new term never issues from segments of an earlier one: the first issue of each term first
   * evicts what the engine holds for the tag, so its first segment is taken after the wait-out,
   * above every segment any earlier owner took (leaf_alloc only grows).
   *
   * A renewal refused (the row names another owner, epoch or ordering) ends the term at once; a
   * renewal acknowledged only after the fence lapsed starts a new term (wait-out and eviction).
   */

  enum Action {
    ISSUE,
    WAIT_OUT,
    FORWARD,
    ACQUIRE
  }

  /** Terms are numbered across every tag of this server, so no two terms share a number. */
  private static final java.util.concurrent.atomic.AtomicLong TERMS =
      new java.util.concurrent.atomic.AtomicLong();

  private final long leaseNanos;
  private final long validNanos;
  private long epoch;

  /** The epoch this server last acquired, kept after its term ends (0: none). */
  private long heldEpoch;

  private long term;
  private long issueFromNanos;
  private long validUntilNanos;
  private long evictedTerm;
  private String knownOwner = "";
  private long knownUntilNanos;
  private long lastUsedNanos;

  /** Calls have found no owner to serve them since {@link #unservedSince}. */
  private volatile boolean unserved;

  private long unservedSince;

  TagOwnership(long leaseNanos) {
    this.leaseNanos = leaseNanos;
    this.validNanos = leaseNanos - leaseNanos / 5;
  }

  /** What a call arriving at {@code now} does. */
  synchronized Action decide(long now) {
    lastUsedNanos = now;
    if (holds(now)) {
      return now - issueFromNanos >= 0 ? Action.ISSUE : Action.WAIT_OUT;
    }
    if (epoch != 0) {
      epoch = 0; // the fence lapsed: this term is over
    }
    if (!knownOwner.isEmpty() && now - knownUntilNanos < 0) {
      return Action.FORWARD;
    }
    return Action.ACQUIRE;
  }

  /** A call found no owner to serve it at {@code now} (waiting out, or none known). */
  synchronized void unserved(long now) {
    if (!unserved) {
      unserved = true;
      unservedSince = now;
    }
  }

  /**
   * A call was routed to an owner at {@code now}.
   *
   * @return how long calls had found none before it; -1 when they had not
   */
  long served(long now) {
    if (!unserved) {
      return -1;
    }
    synchronized (this) {
      if (!unserved) {
        return -1;
      }
      unserved = false;
      return now - unservedSince;
    }
  }

  /** Whether this server's term is within its fence at {@code now} (issuing or waiting out). */
  synchronized boolean holds(long now) {
    return epoch != 0 && now - validUntilNanos < 0;
  }

  /** Whether an ID this server takes may leave now: the term is issuing and within its fence. */
  synchronized boolean mayIssue(long now, long forTerm) {
    return holds(now) && term == forTerm && now - issueFromNanos >= 0;
  }

  /**
   * The term an issuing call belongs to; runs {@code evict} first, under this lock, when the term
   * has not yet dropped the engine's segments of earlier terms (once per term), so no call of the
   * term takes an ID before it.
   */
  synchronized long issuingTerm(Runnable evict) {
    if (evictedTerm != term) {
      evict.run();
      evictedTerm = term;
    }
    return term;
  }

  /** An acquisition sent at {@code sent} was acknowledged at {@code acked} with {@code epoch}. */
  synchronized void acquired(long newEpoch, long sent, long acked) {
    epoch = newEpoch;
    heldEpoch = newEpoch;
    term = TERMS.incrementAndGet();
    issueFromNanos = acked + leaseNanos;
    validUntilNanos = sent + validNanos;
    knownOwner = "";
  }

  /** A renewal sent at {@code sent} was acknowledged at {@code acked}. */
  synchronized void renewed(long forEpoch, long sent, long acked) {
    if (forEpoch != epoch && epoch != 0) {
      return;
    }
    if (epoch == 0 || acked - validUntilNanos >= 0) {
      // Acknowledged after the fence lapsed: the row may be this server's own old copy put back
      // after another server took the tag, so this is a new term.
      acquired(forEpoch, sent, acked);
      return;
    }
    validUntilNanos = Math.max(validUntilNanos, sent + validNanos);
  }

  /** The row no longer names this term: it ends now. */
  synchronized void refused(long forEpoch) {
    if (forEpoch == epoch) {
      epoch = 0;
    }
  }

  /** Another server holds the lease for {@code remainingNanos} from {@code readSent}. */
  synchronized void ownedBy(String owner, long readSent, long remainingNanos) {
    knownOwner = owner;
    knownUntilNanos = readSent + remainingNanos;
  }

  synchronized void forgetOwner() {
    knownOwner = "";
  }

  synchronized long epoch() {
    return epoch;
  }

  /** The epoch this server last acquired, even when its term has ended; 0 when none. */
  synchronized long heldEpoch() {
    return heldEpoch;
  }

  synchronized long knownUntilNanos() {
    return knownUntilNanos;
  }

  synchronized String knownOwner() {
    return knownOwner;
  }

  synchronized long issueFromNanos() {
    return issueFromNanos;
  }

  synchronized long lastUsedNanos() {
    return lastUsedNanos;
  }
}
