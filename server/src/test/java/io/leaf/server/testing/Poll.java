package io.leaf.server.testing;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
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
    return value(() -> condition.getAsBoolean() ? Optional.of(true) : Optional.empty(), timeout)
        .isPresent();
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

  /**
   * What {@code attempt} returns the first time it does not throw an exception {@code retried}
   * accepts; any other exception, or the last one once {@code timeout} passed, is thrown.
   */
  @SuppressWarnings("unchecked")
  public static <T> T retry(Callable<T> attempt, Predicate<Exception> retried, Duration timeout)
      throws Exception {
    Exception[] last = new Exception[1];
    Optional<Object[]> got;
    try {
      got =
          value(
              () -> {
                try {
                  return Optional.of(new Object[] {attempt.call()});
                } catch (Exception e) {
                  if (!retried.test(e)) {
                    throw new Rethrown(e);
                  }
                  last[0] = e;
                  return Optional.empty();
                }
              },
              timeout);
    } catch (Rethrown e) {
      throw (Exception) e.getCause();
    }
    if (got.isPresent()) {
      return (T) got.get()[0];
    }
    throw last[0];
  }

  /** {@link #retry(Callable, Predicate, Duration)} with every exception retried. */
  public static <T> T retry(Callable<T> attempt, Duration timeout) throws Exception {
    return retry(attempt, e -> true, timeout);
  }

  /** Carries an exception {@code retry} must not retry out of the supplier. */
  private static final class Rethrown extends RuntimeException {
    Rethrown(Exception cause) {
      super(cause);
    }
  }
}
