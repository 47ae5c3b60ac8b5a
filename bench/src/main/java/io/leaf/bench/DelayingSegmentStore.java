package io.leaf.bench;

import io.leaf.server.store.SegmentRange;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.TagPage;
import io.leaf.server.store.TagRecord;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;

/**
 * A {@link SegmentStore} that adds a fixed delay before every segment load of the store it wraps,
 * standing in for a distant or busy database; every other call passes straight through.
 *
 * <p>Thread-safe when the wrapped store is. The delay is spent in the calling loader thread, as a
 * slow database round trip would be.
 */
public final class DelayingSegmentStore implements SegmentStore {

  private final SegmentStore delegate;
  private final long delayNanos;

  public DelayingSegmentStore(SegmentStore delegate, Duration delay) {
    if (delay.isNegative()) {
      throw new IllegalArgumentException("delay must not be negative: " + delay);
    }
    this.delegate = delegate;
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
    return delegate.nextSegment(bizTag, step);
  }

  @Override
  public TagRecord createTag(String bizTag, long maxId, int step, String description) {
    return delegate.createTag(bizTag, maxId, step, description);
  }

  @Override
  public Optional<TagRecord> getTag(String bizTag) {
    return delegate.getTag(bizTag);
  }

  @Override
  public TagRecord updateStep(String bizTag, int step) {
    return delegate.updateStep(bizTag, step);
  }

  @Override
  public TagPage listTags(String afterBizTag, int limit) {
    return delegate.listTags(afterBizTag, limit);
  }

  @Override
  public void ping() {
    delegate.ping();
  }
}
