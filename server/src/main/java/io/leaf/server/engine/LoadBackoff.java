package io.leaf.server.engine;

import io.leaf.server.store.StoreUnavailableException;
import io.leaf.server.store.WriteConflictException;

/**
 * A tag's back-off after failed loads: doubling from the minimum to the maximum per failure in a
 * row, ended by the next load that succeeds or by the database answering again.
 *
 * <p>Thread-safety: written under the tag's stripe lock; {@link #backingOff} reads a volatile and
 * may be called without it (the request path checks it before claiming a preload).
 */
final class LoadBackoff {

  /** {@link #retryAtNanos} when not backing off: before any ticker value, even a negative one. */
  private static final long NO_RETRY = Long.MIN_VALUE;

  private int failures;
  private volatile long retryAtNanos = NO_RETRY;
  private RuntimeException lastFailure;

  /** A load failed at {@code nowNanos}; a lost write conflict is no outage and starts none. */
  void onFailed(
      RuntimeException failure, long nowNanos, long minBackoffNanos, long maxBackoffNanos) {
    if (failure instanceof WriteConflictException) {
      // The database answers; another server just won the row. The next request loads again,
      // and an outage that follows starts its back-off (and its warning) afresh.
      return;
    }
    failures++;
    lastFailure = failure;
    retryAtNanos = nowNanos + delay(failures, minBackoffNanos, maxBackoffNanos);
  }

  /** The back-off after {@code failures} in a row: the minimum doubling each time, at most max. */
  static long delay(int failures, long minNanos, long maxNanos) {
    long backoff = minNanos << Math.min(failures - 1, 20);
    return Math.min(backoff < 0 ? maxNanos : backoff, maxNanos);
  }

  /** What a caller gets at once while a tag without buffered IDs backs off after an outage. */
  static StoreUnavailableException noBufferedIds(
      String message, String bizTag, long retryAtNanos, long nowNanos, Throwable cause) {
    long waitMs = Math.max(0, (retryAtNanos - nowNanos) / 1_000_000);
    return new StoreUnavailableException(
        message
            + " (biz_tag "
            + bizTag
            + " has no buffered"
            + " IDs; next database attempt in "
            + waitMs
            + " ms)",
        cause);
  }

  /** A load succeeded, or the database answers again: the next load may start at once. */
  void clear() {
    failures = 0;
    lastFailure = null;
    retryAtNanos = NO_RETRY;
  }

  /** Failed loads in a row (not counting lost write conflicts). */
  int failures() {
    return failures;
  }

  /** True while the tag backs off (the retry time is set only with a failure). */
  boolean backingOff(long nowNanos) {
    return nowNanos < retryAtNanos;
  }

  /** While backing off, the failure a caller of {@code bizTag} gets at once instead of a load. */
  RuntimeException failFast(String bizTag, long nowNanos) {
    if (lastFailure instanceof StoreUnavailableException) {
      return noBufferedIds(lastFailure.getMessage(), bizTag, retryAtNanos, nowNanos, lastFailure);
    }
    return lastFailure;
  }
}
