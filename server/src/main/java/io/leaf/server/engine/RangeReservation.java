package io.leaf.server.engine;

import com.google.common.base.Ticker;
import io.leaf.server.store.SegmentRange;
import io.leaf.server.store.SegmentStore;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * ReserveIds: {@code count} IDs of a tag as at most 3 ascending, disjoint ranges — the rest of the
 * current segment, of the loaded next one, and whatever is still missing from one dedicated store
 * write ({@code max_id += rest}) that no segment of any server can overlap.
 *
 * <p>Cost: a tag that holds enough is answered on the caller's thread with at most two {@code
 * getAndAdd}s; otherwise the dedicated write runs on the {@code database} executor the caller
 * passes (bounded: its refusal fails the call), never on the caller's thread. A tag this server
 * holds nothing of first waits for its first segment like NextId, without a thread.
 *
 * <p>Order: when the segments cannot cover {@code count}, the dedicated write comes first and the
 * buffered IDs are taken only after it succeeded, so a write that fails (a database outage) costs
 * the tag none of its buffered IDs: NextId keeps serving them.
 *
 * <p>Deadlines: the caller's deadline ends the call on the timer thread even while the write is
 * queued or running; a write that still commits afterwards leaves its range unused (a gap) and the
 * buffer untouched.
 *
 * <p>Thread-safe; one instance serves every call of its allocator.
 */
final class RangeReservation {

  /** The current segment and the next: with the dedicated range, 3 ranges at most. */
  private static final int BUFFERED_SEGMENTS = 2;

  private final SegmentAllocator allocator;
  private final IdTaker taker;
  private final TagTable tags;
  private final SegmentStore store;
  private final Ticker ticker;
  private final DeadlineTimer timer;

  RangeReservation(
      SegmentAllocator allocator,
      IdTaker taker,
      TagTable tags,
      SegmentStore store,
      Ticker ticker,
      DeadlineTimer timer) {
    this.allocator = allocator;
    this.taker = taker;
    this.tags = tags;
    this.store = store;
    this.ticker = ticker;
    this.timer = timer;
  }

  CompletableFuture<IdRanges> reserve(
      String bizTag, int count, WaitDeadline deadline, Executor database) {
    if (count <= 0) {
      throw new IllegalArgumentException("count must be positive: " + count);
    }
    CompletableFuture<IdRanges> result = new CompletableFuture<>();
    // Loading first keeps unknown tags on the first-load budget and the missing-tag cache, so a
    // flood of them cannot occupy the database threads.
    CompletableFuture<Void> loaded = allocator.initCache(bizTag, deadline);
    result.whenComplete(
        (v, e) -> {
          if (e instanceof CancellationException) {
            loaded.cancel(false);
          }
        });
    loaded.whenComplete(
        (v, e) -> {
          if (e != null) {
            result.completeExceptionally(IdRequest.unwrap(e));
          } else {
            takeBuffered(bizTag, count, deadline, database, result);
          }
        });
    return result;
  }

  private void takeBuffered(
      String bizTag,
      int count,
      WaitDeadline deadline,
      Executor database,
      CompletableFuture<IdRanges> result) {
    long held;
    try {
      held = buffered(bizTag);
    } catch (RuntimeException e) {
      result.completeExceptionally(e);
      return;
    }
    if (held >= count) {
      IdRanges out = new IdRanges();
      long taken;
      try {
        taken = taker.take(bizTag, count, out, BUFFERED_SEGMENTS, Long.MAX_VALUE);
      } catch (RuntimeException e) {
        result.completeExceptionally(e);
        return;
      }
      if (taken == count) {
        result.complete(out);
        return;
      }
      // Other callers took the buffered IDs meanwhile: the buffer is dry, and the IDs taken here
      // are lost (a gap) if the write below fails.
      writeFirst(bizTag, count, count - taken, out, deadline, database, result);
      return;
    }
    writeFirst(bizTag, count, count - held, new IdRanges(), deadline, database, result);
  }

  /**
   * IDs the tag buffers now in its current segment and the loaded next one: a snapshot, since other
   * callers may take some at any moment.
   */
  private long buffered(String bizTag) {
    TagBuffer b = tags.get(bizTag);
    return b == null || b.isClosed() ? 0 : b.idsBuffered();
  }

  /**
   * The dedicated write of {@code rest} IDs first, and only once it succeeded the buffered IDs: a
   * write that fails (the database down) leaves the tag's buffer whole for NextId.
   */
  private void writeFirst(
      String bizTag,
      int count,
      long rest,
      IdRanges out,
      WaitDeadline deadline,
      Executor database,
      CompletableFuture<IdRanges> result) {
    RuntimeException down = tags.backingOff(bizTag, ticker.read());
    if (down == null) {
      down = allocator.databaseKnownDown();
    }
    if (down != null) {
      result.completeExceptionally(down);
      return;
    }
    long left = deadline.atNanos() - ticker.read();
    if (left <= 0) {
      result.completeExceptionally(deadline.timeout(bizTag));
      return;
    }
    try {
      Runnable cancelTimer =
          timer.schedule(() -> result.completeExceptionally(deadline.timeout(bizTag)), left);
      result.whenComplete((v, e) -> cancelTimer.run());
      database.execute(() -> takeDedicated(bizTag, count, (int) rest, out, result));
    } catch (RuntimeException e) {
      result.completeExceptionally(e);
    }
  }

  /**
   * On a database thread: the write that moves {@code max_id} by exactly {@code rest}, then the
   * buffered IDs below its range. When other callers took some of those meanwhile, the buffered
   * part is given up (a gap) and a second write brings what is missing: two dedicated ranges.
   */
  private void takeDedicated(
      String bizTag, int count, int rest, IdRanges out, CompletableFuture<IdRanges> result) {
    if (result.isDone()) {
      // Timed out or cancelled while queued: no write, so no gap either.
      return;
    }
    try {
      SegmentRange range =
          tags.rewinds().take(bizTag, rest, true, s -> store.reserveRange(bizTag, s));
      if (result.isDone()) {
        // The deadline passed during the write: its range is a gap, the buffer stays whole.
        return;
      }
      long missing = count - out.size() - rest;
      if (missing > 0
          && taker.take(bizTag, missing, out, BUFFERED_SEGMENTS, range.start()) < missing) {
        SegmentRange second =
            tags.rewinds()
                .take(bizTag, (int) (count - rest), true, s -> store.reserveRange(bizTag, s));
        tags.raiseFloor(bizTag, second.end());
        IdRanges both = new IdRanges();
        both.add(range.start(), range.end());
        both.add(second.start(), second.end());
        result.complete(both);
        return;
      }
      // Before the reply: no call that starts after it gets an ID below the range.
      tags.raiseFloor(bizTag, range.end());
      out.add(range.start(), range.end());
      result.complete(out);
    } catch (RuntimeException e) {
      result.completeExceptionally(e);
    }
  }
}
