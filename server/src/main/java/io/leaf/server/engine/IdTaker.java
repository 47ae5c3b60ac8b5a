package io.leaf.server.engine;

import com.google.common.base.Ticker;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;

/**
 * Takes IDs of a tag from its buffered segments, switching to a loaded next segment or registering
 * the call on the tag's pending load when they run dry: the steps {@link IdRequest} and {@link
 * RangeReservation} repeat until a request is served.
 *
 * <p>Thread-safety: safe for any number of threads. Switching segments and registering a wait take
 * the tag's stripe lock ({@link TagTable#lock}); taking from a segment takes none.
 */
final class IdTaker {

  private static final CompletableFuture<Void> READY = CompletableFuture.completedFuture(null);

  private final Ticker ticker;
  private final TagTable tags;
  private final SegmentLoader loader;
  private final SegmentWaiters waiters;
  private final DatabaseGate gate;
  private volatile boolean closed;

  IdTaker(
      Ticker ticker,
      TagTable tags,
      SegmentLoader loader,
      SegmentWaiters waiters,
      DatabaseGate gate) {
    this.ticker = ticker;
    this.tags = tags;
    this.loader = loader;
    this.waiters = waiters;
    this.gate = gate;
  }

  /** From now on every call fails with {@link ServerClosingException}. */
  void close() {
    closed = true;
  }

  boolean isClosed() {
    return closed;
  }

  /**
   * One ID, creating the tag's buffer and switching segments as needed; {@link
   * SegmentAllocator#NO_ID} if none.
   */
  long takeOne(String bizTag) {
    while (true) {
      TagBuffer b = buffer(bizTag);
      Segment seg = b.current();
      long id = seg.take();
      if (id != Segment.EXHAUSTED) {
        if (id >= seg.preloadAt) {
          loader.maybePreload(b, seg, ticker.read());
        }
        return id;
      }
      if (!switchSegment(b, seg)) {
        return SegmentAllocator.NO_ID;
      }
    }
  }

  /**
   * Takes up to {@code n} IDs of {@code bizTag} into {@code out} without waiting, switching to a
   * loaded next segment as needed. Returns how many it took: fewer than {@code n} when the tag ran
   * out of buffered IDs ({@link #whenReady} says when to try again).
   */
  long take(String bizTag, long n, IdRanges out) {
    return take(bizTag, n, out, Integer.MAX_VALUE, Long.MAX_VALUE);
  }

  /**
   * {@link #take}, from at most {@code maxSegments} segments, none starting at or above {@code
   * below} (segments come from disjoint store writes, so none straddles it).
   */
  long take(String bizTag, long n, IdRanges out, int maxSegments, long below) {
    long taken = 0;
    for (int segments = 0; taken < n && segments < maxSegments; ) {
      TagBuffer b = buffer(bizTag);
      Segment seg = b.current();
      if (seg.start >= below) {
        return taken;
      }
      long first = seg.takeRange(n - taken);
      if (first == Segment.EXHAUSTED) {
        if (!switchSegment(b, seg)) {
          return taken;
        }
        continue;
      }
      long end = first + Math.min(n - taken, seg.end - first);
      out.add(first, end);
      segments++;
      taken += end - first;
      if (end - 1 >= seg.preloadAt) {
        loader.maybePreload(b, seg, ticker.read());
      }
    }
    return taken;
  }

  /** True once the tag holds a segment (creating its buffer if needed). */
  boolean isLoaded(String bizTag) {
    return buffer(bizTag).isLoaded();
  }

  /**
   * A future that completes when {@code bizTag} may have IDs again: at once if it has, else when
   * its pending load (started here if none is) ends. While the tag backs off after failed loads it
   * fails at once with the last failure instead of waiting for a database known to be down.
   */
  CompletableFuture<Void> whenReady(String bizTag, WaitDeadline deadline) {
    CompletableFuture<Void> wait = whenReadyLocked(bizTag, deadline);
    if (wait instanceof WaitingCall) {
      // Registered on a load (it may have ended since the lock was released): one wait.
      tags.events().segmentWaited();
    }
    return wait;
  }

  private CompletableFuture<Void> whenReadyLocked(String bizTag, WaitDeadline deadline) {
    Lock lock = tags.lock(bizTag);
    lock.lock();
    try {
      TagBuffer b = tags.get(bizTag);
      long now = ticker.read();
      if (b == null
          || b.isClosed()
          || !b.current().isExhausted()
          || switchSegment(b, b.current())) {
        return READY;
      }
      if (closed) {
        throw new ServerClosingException();
      }
      b.ranDry(now);
      if (b.pendingLoad() == null) {
        if (b.backingOff(now)) {
          throw b.failFast(now);
        }
        loader.start(b, now);
      }
      RuntimeException down = gate.failure();
      if (down != null) {
        // The load goes on as a probe (a multi-host URL may reach another node); the caller is
        // answered now instead of after a connection timeout.
        throw down;
      }
      return waiters.register(b, deadline);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    } finally {
      lock.unlock();
    }
  }

  /** {@link TagTable#switchSegment}, then the loads the prefetch policy asks for. */
  private boolean switchSegment(TagBuffer b, Segment seen) {
    long now = ticker.read();
    if (!tags.switchSegment(b, seen, now)) {
      return false;
    }
    loader.prefetch(b, now);
    return true;
  }

  private TagBuffer buffer(String bizTag) {
    if (closed) {
      throw new ServerClosingException();
    }
    long now = ticker.read();
    TagBuffer b = tags.getOrCreate(bizTag, now);
    b.touch(now);
    return b;
  }
}
