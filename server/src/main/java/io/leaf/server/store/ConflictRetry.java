package io.leaf.server.store;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Runs a database write again when it lost a write conflict: a deadlock, a lock-wait timeout, or a
 * Galera certification failure ("brute-force abort"), which all roll the statement back and leave
 * nothing committed. Other failures pass through at once.
 *
 * <p>The first retry is immediate (a conflict on a hot row usually clears as soon as the winning
 * write commits); later ones wait a random delay in {@code [d, 2d)}, {@code d} doubling from {@code
 * baseDelay} up to {@code maxDelay}, so servers that collided do not collide again in step. The
 * default allows twelve tries over at most about a second: several servers writing one hot row
 * through different Galera nodes lose many certifications in a row, and a segment load runs in the
 * background while the buffered segment still serves.
 *
 * <p>Thread-safe; the delays sleep on the calling thread, which is always a bounded database
 * executor's, never a request's.
 */
final class ConflictRetry {

  /** Sleeps for the given nanoseconds; tests pass a recorder. */
  interface Sleeper {
    void sleepNanos(long nanos) throws InterruptedException;
  }

  static final ConflictRetry DEFAULT =
      new ConflictRetry(
          12,
          Duration.ofMillis(1),
          Duration.ofMillis(64),
          nanos -> Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000)),
          () -> ThreadLocalRandom.current().nextLong(Long.MAX_VALUE));

  private final int attempts;
  private final long baseDelayNanos;
  private final long maxDelayNanos;
  private final Sleeper sleeper;
  private final LongSupplier random;

  /**
   * @param attempts tries in all, at least 1
   * @param baseDelay the delay before the second retry; the first is immediate
   * @param random non-negative random numbers for the jitter
   */
  ConflictRetry(int attempts, Duration baseDelay, Sleeper sleeper, LongSupplier random) {
    this(attempts, baseDelay, Duration.ofNanos(Long.MAX_VALUE), sleeper, random);
  }

  /**
   * @param maxDelay {@code d} stops doubling here (a delay is below {@code 2 * maxDelay})
   */
  ConflictRetry(
      int attempts, Duration baseDelay, Duration maxDelay, Sleeper sleeper, LongSupplier random) {
    if (attempts < 1) {
      throw new IllegalArgumentException("attempts must be at least 1: " + attempts);
    }
    this.attempts = attempts;
    this.baseDelayNanos = baseDelay.toNanos();
    this.maxDelayNanos = maxDelay.toNanos();
    this.sleeper = sleeper;
    this.random = random;
  }

  int attempts() {
    return attempts;
  }

  /**
   * Runs {@code work} until it returns, fails with something other than a conflict, or has lost
   * {@link #attempts()} conflicts; then the last conflict is thrown as it came.
   */
  <T> T run(Supplier<T> work) {
    for (int attempt = 1; ; attempt++) {
      try {
        return work.get();
      } catch (RuntimeException e) {
        if (attempt >= attempts || !isConflict(e)) {
          throw e;
        }
        pause(attempt);
      }
    }
  }

  private void pause(int failedAttempt) {
    if (failedAttempt == 1) {
      return;
    }
    long d = Math.min(baseDelayNanos << Math.min(failedAttempt - 2, 20), maxDelayNanos);
    long delay = d + (d <= 0 ? 0 : random.getAsLong() % d);
    try {
      sleeper.sleepNanos(delay);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException("interrupted while retrying a write conflict", e);
    }
  }

  /**
   * True when {@code t} is a write conflict that rolled the write back (see {@link
   * DatabaseErrors}).
   */
  static boolean isConflict(Throwable t) {
    return DatabaseErrors.classify(t) == DatabaseErrors.Kind.CONFLICT;
  }
}
