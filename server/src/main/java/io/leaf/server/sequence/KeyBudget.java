package io.leaf.server.sequence;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The keys this server keeps in memory at once, over every tag and section ({@code
 * --sequence-max-keys}). A key that finds no room is not kept: its value raises its section's floor
 * instead, which costs gaps, never order.
 */
final class KeyBudget {

  private final long max;
  private final AtomicLong held = new AtomicLong();

  KeyBudget(long max) {
    if (max < 1) {
      throw new IllegalArgumentException("--sequence-max-keys must be at least 1: " + max);
    }
    this.max = max;
  }

  /** Takes room for one key; false when there is none. */
  boolean take() {
    for (; ; ) {
      long now = held.get();
      if (now >= max) {
        return false;
      }
      if (held.compareAndSet(now, now + 1)) {
        return true;
      }
    }
  }

  void release(int keys) {
    held.addAndGet(-keys);
  }

  long held() {
    return held.get();
  }

  long max() {
    return max;
  }
}
