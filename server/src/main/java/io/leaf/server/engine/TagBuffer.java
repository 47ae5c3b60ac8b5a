package io.leaf.server.engine;

import io.leaf.server.store.SegmentRange;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.StoreUnavailableException;
import io.leaf.server.store.WriteConflictException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The double buffer of one tag: the segment IDs come from now, the next one loaded ahead, at most
 * one load in flight, and the tag's dynamic-step and back-off state.
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

  /** The load in flight, completed once its outcome is installed; null when none. */
  CompletableFuture<Void> pending;
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
    lastLoadNanos = startedNanos;
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
