package io.leaf.client;

/**
 * Chooses how many IDs the next block asks for, so that at the rate the last block was used a block
 * lasts about the target interval, within {@code [min, max]}.
 *
 * <p>Pure arithmetic, no clock: the caller passes each block's measured lifetime. Not thread-safe;
 * {@link CachedIdGenerator} calls it under its lock.
 */
final class BlockSizer {

  private final int min;
  private final int max;
  private final long targetNanos;
  private int size;

  BlockSizer(int min, int max, long targetNanos) {
    this.min = min;
    this.max = max;
    this.targetNanos = targetNanos;
    this.size = min;
  }

  /** The size of the next block to ask for. */
  int size() {
    return size;
  }

  /** A block of {@code length} IDs was used up in {@code lifetimeNanos}. */
  void blockUsed(int length, long lifetimeNanos) {
    double wanted = lifetimeNanos <= 0 ? max : (double) length * targetNanos / lifetimeNanos;
    size = (int) Math.max(min, Math.min(max, Math.ceil(wanted)));
  }
}
