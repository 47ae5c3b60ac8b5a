package io.leaf.server.ordering;

import io.grpc.Status;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Runs the ordering table's reads and acquisitions on the database executor, one at a time per tag:
 * callers arriving while a tag's work runs share its future.
 */
final class PerTagQueue {

  /** Reads and acquisitions queued at once (an unknown-tag flood); one more is refused. */
  static final int MAX_IN_FLIGHT = 1_000;

  private final Executor database;
  private final Map<String, CompletableFuture<Void>> inFlight = new ConcurrentHashMap<>();

  PerTagQueue(Executor database) {
    this.database = database;
  }

  /** Runs {@code work} for {@code bizTag}, or joins the run of it already queued. */
  CompletableFuture<Void> once(String bizTag, Runnable work) {
    CompletableFuture<Void> mine = new CompletableFuture<>();
    CompletableFuture<Void> running = inFlight.get(bizTag);
    if (running != null) {
      return running;
    }
    if (inFlight.size() >= MAX_IN_FLIGHT) {
      return CompletableFuture.failedFuture(
          Status.RESOURCE_EXHAUSTED
              .withDescription(
                  "too many tags' orderings being"
                      + " read at once ("
                      + MAX_IN_FLIGHT
                      + "); no room for tag "
                      + bizTag)
              .asRuntimeException());
    }
    running = inFlight.putIfAbsent(bizTag, mine);
    if (running != null) {
      return running;
    }
    try {
      database.execute(
          () -> {
            try {
              work.run();
              mine.complete(null);
            } catch (RuntimeException e) {
              mine.completeExceptionally(
                  OrderingTableErrors.status(e)
                      .withDescription("tag " + bizTag + ": " + OrderingTableErrors.describe(e))
                      .asRuntimeException());
            } finally {
              inFlight.remove(bizTag, mine);
            }
          });
    } catch (RejectedExecutionException e) {
      inFlight.remove(bizTag, mine);
      mine.completeExceptionally(
          Status.RESOURCE_EXHAUSTED
              .withDescription("too many ordering reads queued")
              .asRuntimeException());
    }
    return mine;
  }
}
