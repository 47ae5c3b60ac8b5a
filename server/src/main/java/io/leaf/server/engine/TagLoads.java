package io.leaf.server.engine;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The loads in flight of one {@link TagBuffer} and the calls waiting on the first of them; changed
 * under the tag's stripe lock, except that a waiting call leaving on a cancel or a timeout removes
 * itself without it.
 */
final class TagLoads {

  /** The first load in flight (completed once its outcome is installed); null when none. */
  private CompletableFuture<Void> pending;

  /** At most the prefetch policy's lookahead. */
  private int inFlight;

  /** The calls waiting on {@link #pending}; null when none. Volatile: see {@link #removeWaiter}. */
  private volatile Set<WaitingCall> waiters;

  /** A load was handed to a loader thread; {@code done} completes once its outcome is installed. */
  void started(CompletableFuture<Void> done) {
    inFlight++;
    if (pending == null) {
      pending = done;
    }
  }

  /** A load ended: returns the calls that waited on it, to be woken once the lock is released. */
  Set<WaitingCall> finished() {
    if (--inFlight == 0) {
      pending = null;
    }
    return detachWaiters();
  }

  /** The first load in flight, or null: a caller that finds none starts one. */
  CompletableFuture<Void> pending() {
    return pending;
  }

  int inFlight() {
    return inFlight;
  }

  void addWaiter(WaitingCall w) {
    if (waiters == null) {
      waiters = ConcurrentHashMap.newKeySet();
    }
    waiters.add(w);
  }

  /** Takes every waiting call off the buffer, to be woken once the lock is released. */
  Set<WaitingCall> detachWaiters() {
    Set<WaitingCall> ws = waiters;
    waiters = null;
    return ws;
  }

  /** A call leaving on a cancel or a timeout; lock-free. */
  void removeWaiter(WaitingCall w) {
    Set<WaitingCall> ws = waiters;
    if (ws != null) {
      ws.remove(w);
    }
  }
}
