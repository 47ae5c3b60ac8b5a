package io.leaf.bench;

import io.leaf.server.store.ForwardingSegmentStore;
import io.leaf.server.store.SegmentRange;
import io.leaf.server.store.SegmentStore;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * A {@link SegmentStore} that adds a fixed delay before every segment load of the store it wraps,
 * standing in for a distant or busy database; every other call passes straight through.
 *
 * <p>Thread-safe when the wrapped store is. The delay is spent in the calling loader thread, as a
 * slow database round trip would be.
 */
public final class DelayingSegmentStore extends ForwardingSegmentStore {

  private final long delayNanos;

  public DelayingSegmentStore(SegmentStore delegate, Duration delay) {
    super(delegate);
    if (delay.isNegative()) {
      throw new IllegalArgumentException("delay must not be negative: " + delay);
    }
    this.delayNanos = delay.toNanos();
  }

  @Override
  public SegmentRange nextSegment(String bizTag, int step) {
    long until = System.nanoTime() + delayNanos;
    for (long left = delayNanos; left > 0; left = until - System.nanoTime()) {
      // parkNanos may return early; keep waiting unless the loader is being shut down.
      LockSupport.parkNanos(left);
      if (Thread.currentThread().isInterrupted()) {
        break;
      }
    }
    return super.nextSegment(bizTag, step);
  }
}
