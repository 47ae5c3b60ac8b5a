package io.leaf.server.ordering;

import io.grpc.Deadline;
import io.grpc.Status;
import io.leaf.v1.IdBatch;
import io.leaf.v1.NextIdBatchRequest;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Forwards NextId calls for one owner and tag that meet {@link #IN_FLIGHT} batches in flight as one
 * NextIdBatch, its IDs handed out in arrival order (each taken after its call arrived).
 *
 * <p>Thread-safe; holds no thread: the next batch leaves when one in flight has answered. At most
 * {@code maxWaiting} calls wait for a batch at once; one more is RESOURCE_EXHAUSTED.
 */
final class ForwardBatcher {
  /*
   * Order: a call that arrives at t goes in a batch sent after t (at once, or when one of the
   * batches in flight has answered); the owner takes that batch's IDs after it arrives, so above
   * every ID any server returned before t. Calls of one batch were all in flight together: any
   * order among them is real-time order. A call that gives up (cancelled, deadline) before its
   * batch answers leaves its ID unused: a gap, never a repeat.
   *
   * Calls with different authorization go in different batches: the owner checks the caller's
   * token on every batch, as on a forwarded call.
   */

  /** The most IDs one forwarded batch asks for. */
  static final int MAX_BATCH = 256;

  /**
   * Batches of one owner and tag in flight at once: a call waits for a batch in flight only when
   * this many are, so few calls in flight pay no wait and many go in few batches.
   */
  static final int IN_FLIGHT = 2;

  private record Line(String owner, String bizTag, String authorization) {}

  /** The calls of one line: those waiting for the next batch, and whether one is in flight. */
  private static final class Queue {
    final ArrayDeque<CompletableFuture<Long>> waiting = new ArrayDeque<>();
    Deadline latest;

    /** A waiting call has no deadline: the batch gets {@code --max-wait}. */
    boolean unbounded;

    /** Batches of this line in flight, at most {@link #IN_FLIGHT}. */
    int sending;

    boolean closed;
  }

  private final Forwarder forwarder;
  private final int maxBatch;
  private final Duration maxWait;
  private final int maxWaiting;
  private final Map<Line, Queue> lines = new ConcurrentHashMap<>();

  /** Calls in every line's queue, not yet in a batch. */
  private final AtomicInteger waiting = new AtomicInteger();

  /**
   * @param maxBatch the most IDs one forwarded batch asks for
   * @param maxWait how long a call without a deadline waits ({@code --max-wait})
   * @param maxWaiting calls that may wait for a batch at once ({@code --max-held-strict-calls}); 0:
   *     none wait, each call goes alone
   */
  ForwardBatcher(Forwarder forwarder, int maxBatch, Duration maxWait, int maxWaiting) {
    this.forwarder = forwarder;
    this.maxBatch = maxBatch;
    this.maxWait = maxWait;
    this.maxWaiting = maxWaiting;
  }

  /** Calls waiting for a batch now. */
  int waiting() {
    return waiting.get();
  }

  /**
   * The next ID of {@code bizTag} from {@code owner}, in the next batch; {@code deadline} (null:
   * {@code --max-wait}) bounds the batch it goes in, {@code unreachable} hears of the owner's
   * UNAVAILABLE. Cancelling the answer leaves its ID unused.
   */
  CompletableFuture<Long> nextId(
      String owner, String bizTag, Deadline deadline, String authorization, Runnable unreachable) {
    Line line = new Line(owner, bizTag, authorization);
    CompletableFuture<Long> id = new CompletableFuture<>();
    if (maxWaiting == 0) {
      forwardAlone(line, deadline, id, unreachable);
      return id;
    }
    while (true) {
      Queue q = lines.computeIfAbsent(line, l -> new Queue());
      boolean send;
      synchronized (q) {
        if (q.closed) {
          continue; // emptied and removed meanwhile: a new queue for this line
        }
        send = q.sending < IN_FLIGHT;
        // Counted while in the queue; refused only when it would wait (a line with no batch in
        // flight sends at once, so a queue made here is never left behind by a refusal).
        if (waiting.incrementAndGet() > maxWaiting && !send) {
          waiting.decrementAndGet();
          return CompletableFuture.failedFuture(
              Status.RESOURCE_EXHAUSTED
                  .withDescription(
                      "this server holds "
                          + maxWaiting
                          + " calls forwarded to STRICT tags' owners waiting for a batch"
                          + " (--max-held-strict-calls); tag "
                          + bizTag
                          + "; retry")
                  .asRuntimeException());
        }
        q.waiting.add(id);
        if (deadline == null) {
          q.unbounded = true;
        } else if (q.latest == null || q.latest.isBefore(deadline)) {
          q.latest = deadline;
        }
        if (send) {
          q.sending++;
        }
      }
      if (send) {
        send(line, q, unreachable);
      }
      return id;
    }
  }

  private void send(Line line, Queue q, Runnable unreachable) {
    List<CompletableFuture<Long>> batch = new ArrayList<>();
    Deadline deadline;
    synchronized (q) {
      while (!q.waiting.isEmpty() && batch.size() < maxBatch) {
        CompletableFuture<Long> next = q.waiting.poll();
        waiting.decrementAndGet();
        if (!next.isDone()) {
          batch.add(next);
        }
      }
      if (batch.isEmpty()) {
        q.sending--;
        if (q.sending == 0) {
          q.closed = true;
          lines.remove(line, q);
        }
        return;
      }
      deadline = q.latest;
      if (q.unbounded) {
        Deadline waitMax = Deadline.after(maxWait.toNanos(), TimeUnit.NANOSECONDS);
        deadline = deadline == null || deadline.isBefore(waitMax) ? waitMax : deadline;
      }
      if (q.waiting.isEmpty()) {
        q.latest = null;
        q.unbounded = false;
      }
    }
    Deadline until = deadline;
    if (batch.size() == 1) {
      // One call alone goes as a NextId: a unary call costs the owner less than a stream.
      forwardAlone(line, until, batch.get(0), unreachable)
          .whenComplete((v, e) -> send(line, q, unreachable));
      return;
    }
    NextIdBatchRequest request =
        NextIdBatchRequest.newBuilder()
            .setBizTag(line.bizTag())
            .setCount(batch.size())
            .setChunkSize(batch.size())
            .build();
    sent(() -> forwarder.batch(line.owner(), line.bizTag(), request, until, line.authorization()))
        .whenComplete(
            (answers, failure) -> {
              if (failure == null) {
                handOut(batch, answers);
              } else if (refusedAsBatch(failure)) {
                // The owner has no stream to spare (--max-streams) or takes smaller batches
                // (--max-batch): each call goes on alone, as a NextId.
                for (CompletableFuture<Long> f : batch) {
                  forwardAlone(line, until, f, unreachable);
                }
              } else {
                fail(batch, failure, line, unreachable);
              }
              send(line, q, unreachable);
            });
  }

  /** What was sent, or the failure to send it: the batch's slot is released either way. */
  private static <T> CompletableFuture<T> sent(Supplier<CompletableFuture<T>> call) {
    try {
      return call.get();
    } catch (RuntimeException | Error e) {
      // An address gRPC cannot use, a channel that cannot be made: the batch's slot must be
      // released whatever was thrown, or every later call of the line waits forever.
      return CompletableFuture.failedFuture(
          Status.UNAVAILABLE.withDescription(e.getMessage()).withCause(e).asRuntimeException());
    }
  }

  private static boolean refusedAsBatch(Throwable failure) {
    Status.Code code = Status.fromThrowable(failure).getCode();
    return code == Status.Code.RESOURCE_EXHAUSTED || code == Status.Code.INVALID_ARGUMENT;
  }

  /** Forwards one call as a NextId; completes once its answer (or failure) was handed out. */
  private CompletableFuture<Void> forwardAlone(
      Line line, Deadline deadline, CompletableFuture<Long> id, Runnable unreachable) {
    return sent(() -> forwarder.single(line.owner(), line.bizTag(), deadline, line.authorization()))
        .handle(
            (v, e) -> {
              if (e == null) {
                id.complete(v);
              } else {
                fail(List.of(id), e, line, unreachable);
              }
              return null;
            });
  }

  private static void fail(
      List<CompletableFuture<Long>> calls, Throwable failure, Line line, Runnable unreachable) {
    if (Status.fromThrowable(failure).getCode() == Status.Code.UNAVAILABLE) {
      unreachable.run();
    }
    Throwable told = OwnerFailures.told(failure, line.owner(), line.bizTag());
    calls.forEach(f -> f.completeExceptionally(told));
  }

  private static void handOut(List<CompletableFuture<Long>> batch, List<IdBatch> answers) {
    int i = 0;
    for (IdBatch b : answers) {
      for (long id : b.getIdsList()) {
        if (i < batch.size()) {
          batch.get(i++).complete(id);
        }
      }
    }
    for (; i < batch.size(); i++) {
      batch
          .get(i)
          .completeExceptionally(
              Status.INTERNAL
                  .withDescription("the owner answered fewer IDs than the batch asked for")
                  .asRuntimeException());
    }
  }
}
