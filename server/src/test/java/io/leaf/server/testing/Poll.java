package io.leaf.server.testing;

import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waits for a condition by asking it every few milliseconds until a deadline, in place of a fixed
 * sleep: a test waits as long as the condition takes to hold, and the deadline only bounds a
 * failure.
 */
public final class Poll {

  private static final long EVERY_MS = 10;

  private Poll() {}

  /** True as soon as {@code condition} holds; false once {@code timeout} passed without it. */
  public static boolean until(BooleanSupplier condition, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline >= 0) {
        return false;
      }
      Thread.sleep(EVERY_MS);
    }
    return true;
  }

  /** The first value {@code attempt} yields; empty once {@code timeout} passed without one. */
  public static <T> Optional<T> value(Supplier<Optional<T>> attempt, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (Optional<T> got = attempt.get(); ; got = attempt.get()) {
      if (got.isPresent() || System.nanoTime() - deadline >= 0) {
        return got;
      }
      Thread.sleep(EVERY_MS);
    }
  }
}
