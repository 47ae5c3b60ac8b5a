package io.leaf.server.engine;

import io.leaf.server.store.SegmentRange;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.StoreUnavailableException;
import io.leaf.server.store.WriteConflictException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The buffer of one tag: the segment IDs come from now, the segments loaded ahead (in ascending
 * order), the loads in flight (at most {@link PrefetchPolicy#maxAhead} with the queued ones), the
 * rate and load latency the prefetch learns, and the tag's dynamic-step and back-off state.
 *
 * <p>Thread-safety: {@link #current}, {@link #closed} and {@link #retryAtNanos} are read without a
 * lock on the request path; everything else, and every write, happens under the tag's stripe lock
 * held by {@link SegmentAllocator} and {@link SegmentLoader}. The last-access time is written on
 * every request with an opaque store, the cheapest write another thread (the idle sweeper) is
 * still guaranteed to see eventually.
 */
public final class TagBuffer {

  /** The last-access time is kept to this precision; idle TTLs are many times longer. */
  static final long TOUCH_RESOLUTION_NANOS = 1_000_000;

  private static final VarHandle LAST_ACCESS;
  /** {@link #retryAtNanos} when not backing off: before any ticker value, even a negative one. */
  private static final long NO_RETRY = Long.MIN_VALUE;
  private static final long NOT_DRY = Long.MIN_VALUE;

  static {
    try {
      LAST_ACCESS = MethodHandles.lookup().findVarHandle(TagBuffer.class, "lastAccessNanos", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final String bizTag;

  volatile Segment current = Segment.EMPTY;
  volatile Segment next;
  volatile boolean closed;
  /** Handed to the idle sweeper already; guarded by the stripe lock. */
  boolean announced;
  @SuppressWarnings("unused")
  private volatile long lastAccessNanos;

  /**
   * Non-null while a load is in flight (the first of them, completed once its outcome is
   * installed); null when none.
   */
  CompletableFuture<Void> pending;
  /** Loads in flight, at most the prefetch policy's lookahead; guarded by the stripe lock. */
  int loadsInFlight;
  /**
   * Loaded segments queued behind {@link #next}, ascending; null until a second one is queued
   * (most tags never need it). Guarded by the stripe lock.
   */
  ArrayDeque<Segment> later;

  // Prefetch measurements (ticker time), guarded by the stripe lock.
  /** When {@link #current} became current. */
  long currentSinceNanos;
  /** The recent rate, from the lifetimes of used-up segments; 0 until one is used up. */
  double idsPerNano;
  /** The recent load latency; 0 until a load completes. */
  long loadNanos;
  /** When a call first found {@link #current} used up with nothing queued; NOT_DRY otherwise. */
  long dryAtNanos = NOT_DRY;
  /**
   * The calls waiting on {@link #pending}; null when none. Replaced under the stripe lock; volatile
   * because a call leaving on a cancel or a timeout removes itself without the lock.
   */
  volatile Set<WaitingCall> waiters;

  /**
   * IDs below this were handed out by a reservation above the segments this buffer had loaded or
   * was loading; a segment below it is dropped (a gap), so the tag's IDs keep increasing on this
   * server. Guarded by the stripe lock.
   */
  long floor = Long.MIN_VALUE;

  // Dynamic step (Leaf's rule), guarded by the stripe lock.
  int loads;
  int step;
  int tableStep;
  long lastLoadNanos;
  boolean stepReset;
  int stepEpoch;

  // Back-off after failed loads, written under the stripe lock. retryAtNanos is volatile because
  // the request path reads it without the lock before claiming a preload.
  int failures;
  volatile long retryAtNanos = NO_RETRY;
  RuntimeException lastFailure;

  TagBuffer(String bizTag, long nowNanos) {
    this.bizTag = bizTag;
    this.lastAccessNanos = nowNanos;
  }

  public String bizTag() {
    return bizTag;
  }

  /**
   * The request path's only write besides the cursor, and only when the stored time is at least
   * {@link #TOUCH_RESOLUTION_NANOS} old: a store on every call would keep this object's cache line,
   * which also holds {@link #current}, moving between the cores serving the tag.
   */
  void touch(long nowNanos) {
    if (nowNanos - (long) LAST_ACCESS.getOpaque(this) >= TOUCH_RESOLUTION_NANOS) {
      LAST_ACCESS.setOpaque(this, nowNanos);
    }
  }

  public long lastAccessNanos() {
    return (long) LAST_ACCESS.getOpaque(this);
  }

  public boolean isClosed() {
    return closed;
  }

  boolean isLoaded() {
    return current != Segment.EMPTY;
  }

  /** Loaded segments queued behind {@link #current}; the caller holds the stripe lock. */
  int queued() {
    return (next == null ? 0 : 1) + (later == null ? 0 : later.size());
  }

  /** IDs left in {@link #current} and the queued segments; the caller holds the stripe lock. */
  long idsLeft() {
    long left = current.end - current.cursor();
    if (next != null) {
      left += next.end - next.start;
    }
    if (later != null) {
      for (Segment s : later) {
        left += s.end - s.start;
      }
    }
    return left;
  }

  /**
   * Queues a loaded segment in ascending order, or returns false when it lies below the current
   * one (a load that finished after a higher one was put in use): installed, it would issue IDs
   * below ones already issued, so it is dropped (a gap). The caller holds the stripe lock.
   */
  boolean enqueue(Segment s) {
    if (current != Segment.EMPTY && s.start < current.end) {
      return false;
    }
    if (next == null) {
      next = s;
    } else if (s.start < next.start) {
      queueFirst(next);
      next = s;
    } else {
      if (later == null) {
        later = new ArrayDeque<>(2);
      }
      // Loads mostly finish in order: a segment lower than the last queued is rare.
      ArrayDeque<Segment> sorted = new ArrayDeque<>(later.size() + 1);
      while (!later.isEmpty() && later.peekFirst().start < s.start) {
        sorted.addLast(later.pollFirst());
      }
      sorted.addLast(s);
      sorted.addAll(later);
      later = sorted;
    }
    return true;
  }

  private void queueFirst(Segment s) {
    if (later == null) {
      later = new ArrayDeque<>(2);
    }
    later.addFirst(s);
  }

  /**
   * Makes the next queued segment current (there is one) and learns the rate from the one used
   * up; the caller holds the stripe lock.
   */
  void advance(long nowNanos) {
    Segment used = current;
    if (used != Segment.EMPTY) {
      learnRate(used.end - used.start, nowNanos - currentSinceNanos);
    }
    current = next;
    next = later == null ? null : later.pollFirst();
    if (later != null && later.isEmpty()) {
      later = null;
    }
    currentSinceNanos = nowNanos;
    dryAtNanos = NOT_DRY;
  }

  /** Installs a first segment, or one after the current ran out; the stripe lock is held. */
  void install(Segment s, long nowNanos) {
    Segment used = current;
    if (used != Segment.EMPTY && used.end > used.start) {
      // Its lifetime ends when it ran dry, not when this load arrived.
      learnRate(used.end - used.start, (dryAtNanos == NOT_DRY ? nowNanos : dryAtNanos)
          - currentSinceNanos);
    }
    current = s;
    currentSinceNanos = nowNanos;
    dryAtNanos = NOT_DRY;
  }

  /** A call found the current segment used up and nothing queued; the stripe lock is held. */
  void ranDry(long nowNanos) {
    if (dryAtNanos == NOT_DRY) {
      dryAtNanos = nowNanos;
    }
  }

  /** Drops queued segments below the floor; the caller holds the stripe lock. */
  void dropQueuedBelow(long floor) {
    while (next != null && next.start < floor) {
      next = later == null ? null : later.pollFirst();
    }
    if (later != null && later.isEmpty()) {
      later = null;
    }
  }

  // A rise counts at once (a burst must be fed now); a fall halves the distance each segment,
  // so one slow segment does not starve the next burst.
  private void learnRate(long ids, long lifetimeNanos) {
    double rate = (double) ids / Math.max(1, lifetimeNanos);
    idsPerNano = rate >= idsPerNano ? rate : (idsPerNano + rate) / 2;
  }

  /** A load took {@code nanos}; the same rule as the rate: rises at once, falls by halves. */
  void learnLoadLatency(long nanos) {
    loadNanos = nanos >= loadNanos ? nanos : (loadNanos + nanos) / 2;
  }

  /** The step to pass to the store for the next load. */
  int stepForNextLoad(long nowNanos, StepPolicy policy) {
    // The first two loads, and the first after UpdateStep, take the row's own step.
    if (stepReset || loads < 2) {
      return SegmentStore.TABLE_STEP;
    }
    return policy.nextStep(step, tableStep, nowNanos - lastLoadNanos);
  }

  /** The step the engine will ask for next; the table step when not yet known. */
  int effectiveStep(long nowNanos, StepPolicy policy) {
    int s = stepForNextLoad(nowNanos, policy);
    return s == SegmentStore.TABLE_STEP ? tableStep : s;
  }

  void onLoaded(SegmentRange range, long startedNanos, int epoch) {
    failures = 0;
    lastFailure = null;
    retryAtNanos = NO_RETRY;
    if (epoch != stepEpoch) {
      // UpdateStep arrived while this load was in flight: keep the reset for the next load.
      return;
    }
    loads++;
    step = range.step();
    tableStep = range.tableStep();
    // Loads side by side may finish out of order: the latest start is the last load.
    if (loads == 1 || startedNanos - lastLoadNanos > 0) {
      lastLoadNanos = startedNanos;
    }
    stepReset = false;
  }

  void onFailed(RuntimeException failure, long nowNanos, long minBackoffNanos, long maxBackoffNanos) {
    if (failure instanceof WriteConflictException) {
      // The database answers; another server just won the row. The next request loads again,
      // and an outage that follows starts its back-off (and its warning) afresh.
      return;
    }
    failures++;
    lastFailure = failure;
    long backoff = minBackoffNanos << Math.min(failures - 1, 20);
    retryAtNanos = nowNanos + Math.min(backoff < 0 ? maxBackoffNanos : backoff, maxBackoffNanos);
  }

  /** The database answers again: the next request (or preload) loads at once. */
  void clearBackoff() {
    failures = 0;
    lastFailure = null;
    retryAtNanos = NO_RETRY;
  }

  /** True while the tag backs off after failed loads (retryAtNanos is set only with a failure). */
  boolean backingOff(long nowNanos) {
    return nowNanos < retryAtNanos;
  }

  /** While backing off, the failure a caller gets at once instead of a new load. */
  RuntimeException failFast(long nowNanos) {
    if (lastFailure instanceof StoreUnavailableException) {
      long waitMs = Math.max(0, (retryAtNanos - nowNanos) / 1_000_000);
      return new StoreUnavailableException(lastFailure.getMessage() + " (biz_tag " + bizTag
          + " has no buffered IDs; next database attempt in " + waitMs + " ms)", lastFailure);
    }
    return lastFailure;
  }

  /** What this buffer holds; the caller holds the stripe lock and has checked it is loaded. */
  TagSnapshot snapshot(long nowNanos, StepPolicy policy) {
    Segment n = next;
    return new TagSnapshot(view(current), n == null ? null : view(n),
        effectiveStep(nowNanos, policy), lastAccessNanos(), lastLoadNanos);
  }

  private static TagSnapshot.SegmentView view(Segment s) {
    return new TagSnapshot.SegmentView(s.start, s.end, s.cursor());
  }

  void resetStep(int newStep) {
    step = newStep;
    tableStep = newStep;
    stepReset = true;
    stepEpoch++;
  }
}
