package io.leaf.server.ordering;

import com.google.common.util.concurrent.ThreadFactoryBuilder;
import io.grpc.Status;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Holds a call on a STRICT tag that this server can serve shortly (its wait-out ends, an owner's
 * acquisition is in flight) and routes it again then, instead of refusing it; at most {@code max}
 * calls at once ({@code --max-held-strict-calls}), and only a call whose deadline leaves room.
 *
 * <p>Thread-safe. A held call holds no thread: a timer task on {@code timer} per call.
 */
final class HeldCalls {

  /** Holds nothing: every call is refused at once, as without holding. */
  static final HeldCalls NONE = new HeldCalls(null, 0);

  /** What a held call needs after its wait to be served before its deadline. */
  static final long MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  private final ScheduledExecutorService timer;
  private final int max;
  private final AtomicInteger held = new AtomicInteger();

  /**
   * @param timer runs each held call's next routing
   * @param max calls held at once; 0: none
   */
  HeldCalls(ScheduledExecutorService timer, int max) {
    this.timer = timer;
    this.max = max;
  }

  /**
   * Holding on a timer thread of its own ({@code leaf-held-calls}), which {@link #close()} stops:
   * thousands of calls ending a wait-out at once must not delay the lease renewals.
   */
  static HeldCalls onOwnTimer(int max) {
    return new HeldCalls(
        Executors.newSingleThreadScheduledExecutor(
            new ThreadFactoryBuilder().setNameFormat("leaf-held-calls").setDaemon(true).build()),
        max);
  }

  /** Stops the timer: calls still held are never answered (the server is stopping). */
  void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
  }

  /** Calls held now. */
  int held() {
    return held.get();
  }

  /**
   * The answer of {@code again} run {@code delayNanos} from now, when the call has {@code
   * budgetNanos} left, enough for it; empty when it has not (or holding is off): the caller refuses
   * the call as before. Beyond {@code max} held calls, RESOURCE_EXHAUSTED.
   */
  <T> Optional<CompletableFuture<T>> hold(
      String bizTag, long delayNanos, long budgetNanos, Supplier<CompletableFuture<T>> again) {
    if (max == 0 || delayNanos + MARGIN_NANOS > budgetNanos) {
      return Optional.empty();
    }
    if (held.incrementAndGet() > max) {
      held.decrementAndGet();
      return Optional.of(
          CompletableFuture.failedFuture(
              Status.RESOURCE_EXHAUSTED
                  .withDescription(
                      "this server holds "
                          + max
                          + " calls on STRICT tags until their owner can serve them"
                          + " (--max-held-strict-calls); tag "
                          + bizTag
                          + " waits for its owner; retry")
                  .asRuntimeException()));
    }
    CompletableFuture<T> answer = new CompletableFuture<>();
    Runnable release =
        () -> {
          held.decrementAndGet();
          CompletableFuture<T> next;
          try {
            next = again.get();
          } catch (RuntimeException e) {
            answer.completeExceptionally(e);
            return;
          }
          next.whenComplete(
              (v, e) -> {
                if (e == null) {
                  answer.complete(v);
                } else {
                  answer.completeExceptionally(
                      e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
                }
              });
        };
    try {
      timer.schedule(release, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    } catch (RuntimeException shutDown) {
      held.decrementAndGet();
      return Optional.empty();
    }
    return Optional.of(answer);
  }
}
