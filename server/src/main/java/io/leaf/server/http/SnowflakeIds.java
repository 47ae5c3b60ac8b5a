package io.leaf.server.http;

import io.leaf.server.request.NotServedException;
import io.leaf.server.snowflake.Snowflake;
import java.util.concurrent.CompletableFuture;

/**
 * Where {@code GET /api/snowflake/get/{key}} takes its IDs: one time-ordered ID per call, or a
 * failure the HTTP status table maps (a lost lease is UNAVAILABLE → 503). Must not block: the
 * future completes when the ID is there.
 */
@FunctionalInterface
public interface SnowflakeIds {

  /** Answers every call 503: this server issues no snowflake IDs. */
  SnowflakeIds NOT_SERVED =
      () ->
          CompletableFuture.failedFuture(
              new NotServedException("snowflake IDs are not served by this server"));

  /** The next ID. */
  CompletableFuture<Long> nextId();

  /** IDs of {@code snowflake}, failures as failed futures. */
  static SnowflakeIds of(Snowflake snowflake) {
    return () -> {
      try {
        return CompletableFuture.completedFuture(snowflake.nextId());
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    };
  }
}
