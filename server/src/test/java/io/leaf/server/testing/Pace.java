package io.leaf.server.testing;

import java.time.Duration;

/**
 * The pace of a test's load: a caller's back-off after a failed call, and the length of a phase
 * (load before a kill, a sampling interval); never a wait for a condition, which is {@link Poll}.
 */
public final class Pace {

  /** A client's back-off between retries in these tests. */
  public static final Duration BACK_OFF = Duration.ofMillis(20);

  private Pace() {}

  /** Pauses {@link #BACK_OFF}. */
  public static void backOff() throws InterruptedException {
    hold(BACK_OFF);
  }

  /**
   * Pauses {@link #BACK_OFF} in a loop that cannot throw; false when interrupted (the flag set
   * again), for the loop to end.
   */
  public static boolean backOffUnlessInterrupted() {
    try {
      backOff();
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Lets a phase run for {@code length} (nothing when not positive). */
  public static void hold(Duration length) throws InterruptedException {
    if (length.isNegative() || length.isZero()) {
      return;
    }
    Thread.sleep(length.toMillis(), length.toNanosPart() % 1_000_000);
  }

  /** {@link #hold(Duration)} in milliseconds. */
  public static void holdMillis(long millis) throws InterruptedException {
    hold(Duration.ofMillis(millis));
  }
}
