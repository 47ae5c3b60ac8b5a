package io.leaf.server.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A request that takes what it needs without blocking and, when the tag has nothing buffered,
 * resumes from the end of the tag's pending load: the future of {@link SegmentAllocator#nextId},
 * {@link SegmentAllocator#nextIds} and {@link SegmentAllocator#initCache}.
 *
 * <p>It runs first on the caller's thread, then on whichever thread ends each wait (a loader
 * thread, the deadline timer). Only one attempt runs at a time: the next is started by the end of
 * the wait the previous one registered. {@link #cancel} drops the current wait and frees its slot.
 */
abstract class IdRequest<T> extends CompletableFuture<T> {

  private final IdTaker taker;
  final String bizTag;
  private final WaitDeadline deadline;
  private volatile CompletableFuture<Void> wait;

  private IdRequest(IdTaker taker, String bizTag, WaitDeadline deadline) {
    this.taker = taker;
    this.bizTag = bizTag;
    this.deadline = deadline;
  }

  /** Takes what is buffered; true once this request is complete. */
  abstract boolean attempt(IdTaker taker);

  static CompletableFuture<Long> one(IdTaker taker, String bizTag, WaitDeadline d) {
    return new IdRequest<Long>(taker, bizTag, d) {
      @Override
      boolean attempt(IdTaker a) {
        long id = a.takeOne(bizTag);
        return id != SegmentAllocator.NO_ID && complete(id);
      }
    }.start();
  }

  static CompletableFuture<IdRanges> many(IdTaker taker, String bizTag, int count, WaitDeadline d) {
    IdRanges out = new IdRanges();
    return new IdRequest<IdRanges>(taker, bizTag, d) {
      @Override
      boolean attempt(IdTaker a) {
        a.take(bizTag, count - out.size(), out);
        return out.size() == count && complete(out);
      }
    }.start();
  }

  static CompletableFuture<Void> loaded(IdTaker taker, String bizTag, WaitDeadline d) {
    return new IdRequest<Void>(taker, bizTag, d) {
      @Override
      boolean attempt(IdTaker a) {
        return a.isLoaded(bizTag) && complete(null);
      }
    }.start();
  }

  /** One attempt, then a wait if needed; the end of the wait calls this again. */
  final IdRequest<T> start() {
    try {
      while (!isDone()) {
        if (attempt(taker)) {
          return this;
        }
        CompletableFuture<Void> ready = taker.whenReady(bizTag, deadline);
        if (ready.isDone()) {
          ready.join();
          continue;
        }
        wait = ready;
        if (isDone()) {
          // Cancelled while registering: the cancel may have missed this wait.
          ready.cancel(false);
          return this;
        }
        ready.whenComplete(
            (v, e) -> {
              if (e == null) {
                start();
              } else {
                completeExceptionally(unwrap(e));
              }
            });
        return this;
      }
    } catch (RuntimeException e) {
      completeExceptionally(unwrap(e));
    }
    return this;
  }

  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    boolean cancelled = super.cancel(mayInterruptIfRunning);
    CompletableFuture<Void> w = wait;
    if (w != null) {
      w.cancel(false);
    }
    return cancelled;
  }

  static Throwable unwrap(Throwable e) {
    return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
  }
}
