package io.leaf.server.engine;

import com.google.common.base.Ticker;
import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import io.leaf.server.store.IdOverflowException;
import io.leaf.server.store.InvalidTagStateException;
import io.leaf.server.store.StoreRejectedException;
import io.leaf.server.store.StoreUnavailableException;
import io.leaf.server.store.TagNotFoundException;
import io.leaf.server.store.WriteConflictException;
import java.time.Duration;

/**
 * Names whose first load failed, each remembered for at most the TTL ({@code --missing-tag-ttl})
 * with the answer to give meanwhile without a database round trip: NOT_FOUND for a tag the database
 * does not have; for any other failure, that failure while the name's back-off lasts.
 *
 * <p>Bounded: at most {@link #CAPACITY} names, and when full the least recently written go first
 * (nothing is refused: a flood of distinct names only shortens each one's stay, and a name
 * forgotten is looked up again on the first-load budget, which {@code --max-queued-first-loads}
 * bounds). An entry holds the name, a kind, a message and two numbers: never an exception, so no
 * stack trace or driver state stays behind a name. A tag created through this server is forgotten
 * at once ({@link #remove}); one created through another server sharing the database is seen after
 * at most the TTL. Thread-safe.
 */
final class MissingTags {

  /** About 10 MB of short names and their reasons at most. */
  static final int CAPACITY = 50_000;

  /** What a remembered failure answers; every kind maps to the status its exception has. */
  private enum Kind {
    NOT_FOUND,
    UNAVAILABLE,
    REFUSED,
    INVALID_STATE,
    OUT_OF_RANGE,
    INTERNAL
  }

  /** The most of a failure's message kept per name, so the bound of names bounds the memory. */
  static final int MAX_MESSAGE_CHARS = 300;

  /** A failed first load: what to answer and until when ({@code retryAtNanos}, ticker time). */
  private record Failed(Kind kind, String message, long retryAtNanos, int failures) {}

  private static final Failed NOT_FOUND = new Failed(Kind.NOT_FOUND, null, Long.MAX_VALUE, 0);

  private final Cache<String, Failed> names;
  private final long ttlNanos;

  MissingTags(Duration ttl, Ticker ticker) {
    this.ttlNanos = ttl.toNanos();
    this.names =
        CacheBuilder.newBuilder()
            .expireAfterWrite(ttl)
            .maximumSize(ttl.isZero() ? 0 : CAPACITY)
            .ticker(ticker)
            .build();
  }

  /**
   * The failure to answer for {@code bizTag} now without a load (a new exception each time), or
   * null when it may be loaded: not remembered, or its back-off has passed.
   */
  RuntimeException answer(String bizTag, long nowNanos) {
    Failed f = names.getIfPresent(bizTag);
    if (f == null || (f.kind != Kind.NOT_FOUND && nowNanos - f.retryAtNanos >= 0)) {
      return null;
    }
    return switch (f.kind) {
      case NOT_FOUND -> new TagNotFoundException(bizTag);
      case UNAVAILABLE ->
          LoadBackoff.noBufferedIds(f.message, bizTag, f.retryAtNanos, nowNanos, null);
      case REFUSED -> new StoreRejectedException(f.message, null);
      case INVALID_STATE -> new InvalidTagStateException(f.message);
      case OUT_OF_RANGE -> new IdOverflowException(f.message);
      case INTERNAL -> new IllegalStateException(f.message);
    };
  }

  /** True when {@code bizTag} is remembered as not in the database. */
  boolean contains(String bizTag) {
    return names.getIfPresent(bizTag) == NOT_FOUND;
  }

  /**
   * Remembers that the first load of {@code bizTag} failed with {@code failure}: NOT_FOUND for the
   * TTL, another failure until its back-off ({@code minNanos} doubling per failure in a row, at
   * most {@code maxNanos} and half the TTL, so that a retry at the end of the back-off still finds
   * the count) has passed; a failure of no known kind is answered as an internal error for its
   * back-off. A lost write conflict is not remembered (the next call loads again at once).
   *
   * @return the failures in a row now remembered for the name; 0 when none is
   */
  int add(String bizTag, RuntimeException failure, long nowNanos, long minNanos, long maxNanos) {
    if (failure instanceof TagNotFoundException) {
      names.put(bizTag, NOT_FOUND);
      return 1;
    }
    Kind kind =
        failure instanceof WriteConflictException
            ? null
            : failure instanceof StoreUnavailableException
                ? Kind.UNAVAILABLE
                : failure instanceof StoreRejectedException
                    ? Kind.REFUSED
                    : failure instanceof InvalidTagStateException
                        ? Kind.INVALID_STATE
                        : failure instanceof IdOverflowException
                            ? Kind.OUT_OF_RANGE
                            : Kind.INTERNAL;
    if (kind == null || ttlNanos == 0) {
      return 0;
    }
    Failed before = names.getIfPresent(bizTag);
    int failures = before == null || before.kind == Kind.NOT_FOUND ? 1 : before.failures + 1;
    long backoff = Math.min(LoadBackoff.delay(failures, minNanos, maxNanos), ttlNanos / 2);
    String message = String.valueOf(failure.getMessage());
    if (message.length() > MAX_MESSAGE_CHARS) {
      message = message.substring(0, MAX_MESSAGE_CHARS) + "…";
    }
    names.put(bizTag, new Failed(kind, message, nowNanos + backoff, failures));
    return failures;
  }

  void remove(String bizTag) {
    names.invalidate(bizTag);
  }

  /** Ends every remembered back-off (the database answers again); NOT_FOUND answers stay. */
  void clearFailures() {
    names.asMap().values().removeIf(f -> f.kind != Kind.NOT_FOUND);
  }

  /** Names remembered now (expired ones may still count until the cache cleans them up). */
  long size() {
    return names.size();
  }
}
