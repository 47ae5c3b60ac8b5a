package io.leaf.server.snowflake;

/**
 * Where the sequence of a millisecond the wall clock reached starts: a value rotating through
 * {@code 0..window-1}, one step per such millisecond, so that at low traffic {@code id % m} spreads
 * evenly for every {@code m} dividing the window (16 included) instead of always being 0.
 *
 * <p>Why rotating, not random: a rotation covers every residue equally after window milliseconds,
 * whereas random starts are uniform only on average; and it needs no random source under the
 * generator's lock.
 *
 * <p>Why a small window: the sequence runs from the start up to the layout's maximum and then
 * borrows the next millisecond (never wraps below the start: IDs keep increasing), so a start of s
 * leaves s values of that millisecond unused. A window of at most 64 (and at most a quarter of the
 * sequence) bounds the loss to 1.6 % of a millisecond in the default 12-bit layout; a borrowed
 * millisecond (the previous one was full: high traffic, nothing to spread) starts at 0, so a
 * full-speed stream loses nothing.
 *
 * <p>Not thread-safe: the generator calls it under its lock.
 */
final class SequenceStart {

  /** The widest window: {@code id % m} spreads for every power of two m up to it. */
  static final int MAX_WINDOW = 64;

  private final int window;
  private int next;

  SequenceStart(SnowflakeLayout layout) {
    int w = Math.min(MAX_WINDOW, layout.idsPerMillisecond() / 4);
    this.window = w < 1 ? 1 : Integer.highestOneBit(w);
  }

  /** The start of the next millisecond reached by the wall clock. */
  int next() {
    int start = next;
    next = (next + 1) & (window - 1);
    return start;
  }

  int window() {
    return window;
  }
}
