package io.leaf.server.sequence;

import io.grpc.Status;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One section of a tag's keys on its owner: issues each key's next value, strictly above the key's
 * last and at most the section's stored ceiling, raising the ceiling (one write at a time) before
 * any value above it leaves.
 *
 * <p>Thread-safe: one lock per section, never held across a database statement.
 */
final class Section {
  /*
   * The rules (docs/ordering.md, "Sequences per key"):
   *
   * - ceiling: stored before any value above the old one is issued, so every value ever issued
   *   for a key of the section is at most the stored ceiling.
   * - floor: every value issued for a key that is not in memory is at most floor. A term's first
   *   use reads the stored ceiling C (after the wait-out: no earlier owner issues any more) and
   *   starts with floor = C, so whatever any earlier term or server issued is below.
   * - a key in memory gets last + 1, a key not in memory floor + 1; both are above everything
   *   the key was ever given. A key dropped (eviction, no room) raises floor to its last value.
   *
   * Memory of another term (this server lost the tag and won it back) is never used: the section
   * records the term it was loaded in and loads again for any other.
   */

  private static final Logger log = LoggerFactory.getLogger(Section.class);

  /** Values stay below this (the key table shifts them by one bit). */
  static final long MAX_CEILING = 1L << 61;

  /** Attempts of one call: a load, a raise, and one more after a raise lost to another term. */
  private static final int ATTEMPTS = 4;

  private final String bizTag;
  private final int index;
  private final SectionStore store;
  private final SerialDatabase database;
  private final KeyBudget budget;
  private final long step;
  private final KeyTable keys = new KeyTable();
  private final LongConsumer dropped = v -> floorAtLeast(v);

  private long termId;
  private long floor;
  private long ceiling;
  private CompletableFuture<Void> pending;
  private boolean retired;

  Section(
      String bizTag,
      int index,
      SectionStore store,
      SerialDatabase database,
      KeyBudget budget,
      long step) {
    this.bizTag = bizTag;
    this.index = index;
    this.store = store;
    this.database = database;
    this.budget = budget;
    this.step = step;
  }

  /**
   * The key's next value in {@code term}; fails UNAVAILABLE when the term may not issue, {@link
   * RetiredException} when this section was dropped from memory (look it up again).
   */
  CompletableFuture<Long> next(long hash, OwnerTerm term) {
    return next(hash, term, 1);
  }

  private CompletableFuture<Long> next(long hash, OwnerTerm term, int attempt) {
    CompletableFuture<Void> wait;
    Runnable start = null;
    long issued = 0;
    synchronized (this) {
      if (retired) {
        return CompletableFuture.failedFuture(new RetiredException());
      }
      if (!term.mayIssue()) {
        return unavailable("this server's owner lease ended");
      }
      if (termId != term.id()) {
        if (pending == null) {
          start = load(term);
        }
        wait = pending;
      } else {
        long v = Math.max(keys.get(hash), floor) + 1;
        if (v <= ceiling) {
          keep(hash, v);
          issued = v;
          if (ceiling - v < step / 2 && pending == null) {
            start = raise(term); // ahead of need: calls seldom wait for a raise
          }
        } else if (pending == null) {
          start = raise(term);
        }
        wait = pending;
      }
    }
    if (start != null) {
      database.execute(start);
    }
    if (issued != 0) {
      return CompletableFuture.completedFuture(issued);
    }
    if (attempt >= ATTEMPTS) {
      return unavailable("its ceiling could not be raised in " + ATTEMPTS + " attempts");
    }
    return wait.thenCompose(v -> next(hash, term, attempt + 1));
  }

  /** Keeps the key's value in memory, or raises the floor to it when there is no room. */
  private void keep(long hash, long v) {
    if (keys.get(hash) != 0) {
      keys.put(hash, v);
      return;
    }
    if (!budget.take()) {
      int freed = keys.sweep(dropped);
      budget.release(freed);
      if (!budget.take()) {
        floorAtLeast(v);
        return;
      }
    }
    keys.put(hash, v);
  }

  private void floorAtLeast(long v) {
    if (v > floor) {
      floor = v;
    }
  }

  /**
   * Starts reading the ceiling and raising it for {@code term}; run the answer outside the lock.
   */
  private Runnable load(OwnerTerm term) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    pending = done;
    // What this process stored before bounds what it issued: a row read lower went back in time.
    long known = ceiling;
    return () -> {
      try {
        long c = store.ceiling(bizTag, index);
        long base = Math.max(c, known);
        long to = raised(base);
        boolean ok = store.raise(bizTag, index, c, to, term.owner(), term.epoch());
        synchronized (this) {
          pending = null;
          if (ok) {
            budget.release(keys.size());
            keys.clear(v -> {});
            termId = term.id();
            floor = base;
            ceiling = to;
          }
        }
        if (ok) {
          done.complete(null);
        } else {
          done.completeExceptionally(refused());
        }
      } catch (RuntimeException e) {
        failed(done, e);
      }
    };
  }

  /** Starts raising the ceiling in {@code term}; a raise refused makes the next call load again. */
  private Runnable raise(OwnerTerm term) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    pending = done;
    long from = ceiling;
    long loadedIn = termId;
    return () -> {
      try {
        long to = raised(from);
        boolean ok = store.raise(bizTag, index, from, to, term.owner(), term.epoch());
        synchronized (this) {
          pending = null;
          if (termId == loadedIn) {
            if (ok) {
              ceiling = Math.max(ceiling, to);
            } else {
              termId = 0; // the stored ceiling moved or the lease did: read it again
            }
          }
        }
        done.complete(null);
      } catch (RuntimeException e) {
        failed(done, e);
      }
    };
  }

  private long raised(long from) {
    if (from >= MAX_CEILING - step) {
      throw Status.OUT_OF_RANGE
          .withDescription(
              "tag " + bizTag + ": section " + index + " has no values left (ceiling " + from + ")")
          .asRuntimeException();
    }
    return from + step;
  }

  private void failed(CompletableFuture<Void> done, RuntimeException e) {
    synchronized (this) {
      pending = null;
    }
    if (e instanceof io.grpc.StatusRuntimeException) {
      done.completeExceptionally(e);
      return;
    }
    log.warn("tag {}: sequence section {} not read or raised: {}", bizTag, index, e.toString());
    done.completeExceptionally(
        Status.UNAVAILABLE
            .withDescription(
                "tag "
                    + bizTag
                    + ": the ceiling of its sequences cannot be read or raised now"
                    + " (leaf_sequence_section); retry")
            .asRuntimeException());
  }

  private io.grpc.StatusRuntimeException refused() {
    return Status.UNAVAILABLE
        .withDescription(
            "tag "
                + bizTag
                + " is STRICT and this server's lease no longer holds in the database"
                + " (ceiling raise refused); retry")
        .asRuntimeException();
  }

  private CompletableFuture<Long> unavailable(String why) {
    return CompletableFuture.failedFuture(
        Status.UNAVAILABLE
            .withDescription("tag " + bizTag + " is STRICT and " + why + "; retry")
            .asRuntimeException());
  }

  /**
   * Takes the term's start from a raise of every section of the tag ({@code floor}: the ceiling
   * before it), unless this section is loading or already in the term.
   */
  synchronized void adopt(OwnerTerm term, long newFloor, long newCeiling) {
    if (retired || pending != null || termId == term.id() || ceiling > newFloor) {
      // A stored ceiling below what this process stored went back in time: load() lifts it.
      return;
    }
    budget.release(keys.size());
    keys.clear(v -> {});
    termId = term.id();
    floor = newFloor;
    ceiling = newCeiling;
  }

  /** Drops keys unused since the last sweep; returns how many. */
  synchronized int sweep() {
    int freed = keys.sweep(dropped);
    budget.release(freed);
    return freed;
  }

  /** Drops everything from memory for good; a later call looks the section up again. */
  synchronized void retire() {
    retired = true;
    budget.release(keys.size());
    keys.clear(v -> {});
  }

  /** Keys in memory. */
  synchronized int keys() {
    return keys.size();
  }

  /** Heap of the key table's arrays, in bytes. */
  synchronized long keyBytes() {
    return keys.arrayBytes();
  }

  /** Thrown (in a failed future) by a section dropped from memory. */
  static final class RetiredException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RetiredException() {
      super(null, null, false, false);
    }
  }
}
