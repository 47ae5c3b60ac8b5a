package io.leaf.server.engine;

import com.google.common.base.Ticker;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The calls waiting for segments, server-wide: at most {@code limit} at once, each on its tag's
 * pending load, each with a deadline enforced by a {@link DeadlineTimer} instead of a parked
 * thread.
 *
 * <p>A waiting call costs one {@link WaitingCall} in its tag's set and one timer task; it holds no
 * thread. It leaves when the load ends ({@link #wakeAll}, on the loader thread), when its deadline
 * passes (on the timer thread) or when it is cancelled (on the caller's thread), whichever is
 * first; its slot is freed then.
 *
 * <p>Thread-safety: registration and {@link #detach} run under the tag's stripe lock, so a call
 * never registers on a load that has already ended; leaving needs no lock (the set is concurrent,
 * and {@link WaitingCall#settle} decides who completes the call).
 */
final class SegmentWaiters {

  static final String LIMIT_FLAG = "--max-waiting";

  private final int limit;
  private final Ticker ticker;
  private final DeadlineTimer timer;
  private final AtomicInteger waiting = new AtomicInteger();

  SegmentWaiters(int limit, Ticker ticker, DeadlineTimer timer) {
    this.limit = limit;
    this.ticker = ticker;
    this.timer = timer;
  }

  /**
   * Registers a call on the load {@code b} has pending; the caller holds the tag's stripe lock.
   *
   * @throws SegmentWaitTimeoutException the call has no time left to wait
   * @throws LimitExceededException {@code limit} calls are waiting already
   */
  WaitingCall register(TagBuffer b, WaitDeadline deadline) {
    long left = deadline.atNanos() - ticker.read();
    if (left <= 0) {
      throw deadline.timeout(b.bizTag());
    }
    if (waiting.incrementAndGet() > limit) {
      waiting.decrementAndGet();
      throw new LimitExceededException("too many calls waiting for segments", limit, LIMIT_FLAG);
    }
    WaitingCall w = new WaitingCall(this, b);
    try {
      // Before joining the set: a timer that refuses (closed) must not leave a counted call behind.
      // One that fires at once finds the call not yet in the set, which is harmless.
      w.cancelTimer = timer.schedule(() -> expire(w, deadline), left);
    } catch (RuntimeException e) {
      waiting.decrementAndGet();
      throw e;
    }
    b.loads().addWaiter(w);
    return w;
  }

  /**
   * Completes the detached calls: normally (try again) when {@code failure} is null, else with it.
   * Runs without the stripe lock: completing a call runs its continuation.
   */
  void wakeAll(Set<WaitingCall> ws, RuntimeException failure) {
    if (ws == null) {
      return;
    }
    for (WaitingCall w : ws) {
      if (w.settle()) {
        release(w);
        if (failure == null) {
          w.complete(null);
        } else {
          w.completeExceptionally(failure);
        }
      }
    }
  }

  /** Calls waiting now. */
  int waiting() {
    return waiting.get();
  }

  /** A cancel: true when this call was still waiting (it is dropped, its slot freed). */
  boolean drop(WaitingCall w) {
    if (!w.settle()) {
      return false;
    }
    leave(w);
    return true;
  }

  private void expire(WaitingCall w, WaitDeadline deadline) {
    if (w.settle()) {
      leave(w);
      w.completeExceptionally(deadline.timeout(w.buffer.bizTag()));
    }
  }

  private void leave(WaitingCall w) {
    w.buffer.loads().removeWaiter(w);
    release(w);
  }

  private void release(WaitingCall w) {
    waiting.decrementAndGet();
    Runnable cancel = w.cancelTimer;
    if (cancel != null) {
      cancel.run();
    }
  }
}
