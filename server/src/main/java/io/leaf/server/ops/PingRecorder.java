package io.leaf.server.ops;

import io.leaf.server.store.ForwardingSegmentStore;
import io.leaf.server.store.SegmentStore;

/**
 * Remembers what the server's periodic database check last found, for the {@code
 * leaf.database.up} gauge: the store's {@link #ping} is that check, so watching it adds no query.
 */
final class PingRecorder extends ForwardingSegmentStore {

  /** 1 after a check that passed, 0 after one that failed or before the first. */
  private volatile int up;

  PingRecorder(SegmentStore delegate) {
    super(delegate);
  }

  @Override
  public void ping() {
    try {
      super.ping();
      up = 1;
    } catch (RuntimeException e) {
      up = 0;
      throw e;
    }
  }

  int up() {
    return up;
  }
}
