package io.leaf.server.testing;

import io.leaf.server.engine.IdRanges;
import io.leaf.server.engine.SegmentAllocator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The engine's asynchronous calls waited for, for tests that read best as straight-line code: a
 * test thread may park; the server's call paths never do.
 */
public final class Blocking {

  /** How long past the call's own wait a test gives its future before declaring it lost. */
  private static final long GRACE_SECONDS = 30;

  private Blocking() {}

  /**
   * One ID, waiting at most {@code timeoutNanos} for a segment (the server's cap, not a caller's).
   */
  public static long nextId(SegmentAllocator a, String tag, long timeoutNanos) {
    // The server's two paths: the lock-free one, then the one that may wait.
    long id = a.tryNextId(tag);
    if (id != SegmentAllocator.NO_ID) {
      return id;
    }
    return join(a.nextId(tag, a.deadline(timeoutNanos, false)), timeoutNanos);
  }

  public static IdRanges nextIds(SegmentAllocator a, String tag, int count, long timeoutNanos) {
    return join(a.nextIds(tag, count, a.deadline(timeoutNanos, false)), timeoutNanos);
  }

  public static void initCache(SegmentAllocator a, String tag, long timeoutNanos) {
    join(a.initCache(tag, a.deadline(timeoutNanos, false)), timeoutNanos);
  }

  /** The future's value, or its failure rethrown as it is. */
  public static <T> T join(CompletableFuture<T> f, long timeoutNanos) {
    try {
      return f.get(TimeUnit.NANOSECONDS.toSeconds(timeoutNanos) + GRACE_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw new AssertionError("failed with a checked exception or an error", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    } catch (TimeoutException e) {
      throw new AssertionError("the future never completed: a wait without a deadline", e);
    }
  }
}
