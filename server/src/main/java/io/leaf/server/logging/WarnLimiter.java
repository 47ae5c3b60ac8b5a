package io.leaf.server.logging;

import com.google.common.base.Ticker;
import java.time.Duration;

/**
 * Lets a repeating warning through at most once per period on a monotonic ticker, counting the ones
 * held back; {@link #reset()} after a success lets the next failure through at once.
 */
public final class WarnLimiter {

  /** The period of every repeating warning, as the operations docs promise. */
  public static final Duration ONCE_A_MINUTE = Duration.ofMinutes(1);

  private final Ticker ticker;
  private final long periodNanos;
  private boolean warned;
  private long lastNanos;
  private long heldBack;

  public WarnLimiter(Ticker ticker, Duration period) {
    this.ticker = ticker;
    this.periodNanos = period.toNanos();
  }

  /**
   * Whether to log now: the number of warnings held back since the last one logged (0 or more), or
   * -1 when this one is held back.
   */
  public synchronized long acquire() {
    long now = ticker.read();
    if (warned && now - lastNanos < periodNanos) {
      heldBack++;
      return -1;
    }
    warned = true;
    lastNanos = now;
    long skipped = heldBack;
    heldBack = 0;
    return skipped;
  }

  /** The trouble is over: the next warning is logged at once. */
  public synchronized void reset() {
    warned = false;
    heldBack = 0;
  }

  /** {@code " (N more since the last)"} for {@code skipped} above 0, else empty. */
  public static String heldBack(long skipped) {
    return skipped > 0 ? " (" + skipped + " more like it since the last)" : "";
  }
}
