package io.leaf.server.snowflake;

import com.google.common.base.Ticker;
import java.time.InstantSource;

/**
 * A millisecond clock that never goes backwards and never runs slower than real time.
 *
 * <p>It follows the wall clock while the wall clock moves forward, and runs on the monotonic clock
 * from its last value when the wall clock steps back. It bounds how far ID time may be borrowed
 * ahead and what a worker's lease promises; the IDs' own time is {@link SnowflakeGenerator}'s.
 *
 * <p>Not thread-safe: its owner ({@link SnowflakeGenerator}) calls it under its lock.
 */
final class ReferenceClock {

  private final InstantSource wall;
  private final Ticker monotonic;
  private long anchorMs;
  private long anchorNanos;

  ReferenceClock(InstantSource wall, Ticker monotonic) {
    this.wall = wall;
    this.monotonic = monotonic;
    this.anchorMs = wall.millis();
    this.anchorNanos = monotonic.read();
  }

  /** The wall clock now, as it is (it may have stepped back). */
  long wallMs() {
    return wall.millis();
  }

  /** Now: the later of the wall clock and the last value plus the monotonic time since. */
  long nowMs() {
    return nowMs(wall.millis(), monotonic.read());
  }

  /** {@link #nowMs()} from readings the caller already took of the wall and monotonic clocks. */
  long nowMs(long w, long nanos) {
    long reference = anchorMs + (nanos - anchorNanos) / 1_000_000;
    if (w > reference) {
      anchorMs = w;
      anchorNanos = nanos;
      return w;
    }
    return reference;
  }

  /** From now on at least {@code ms} (a worker claimed whose last holder's time ran ahead). */
  void raiseTo(long ms) {
    long nanos = monotonic.read();
    if (ms > anchorMs + (nanos - anchorNanos) / 1_000_000) {
      anchorMs = ms;
      anchorNanos = nanos;
    }
  }
}
