package io.leaf.client;

import com.google.common.base.Ticker;
import io.grpc.Status;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The ranges behind a {@link CachedIdGenerator}: the current block, the reservations queued after
 * it, and the one background thread that fetches the next reservation with ReserveIds.
 */
final class RangeSupply {

  private static final System.Logger log = System.getLogger(CachedIdGenerator.class.getName());
  private static final long NONE = RangeBlock.NONE;

  private final LeafClient client;
  private final String bizTag;
  private final long maxWaitNanos;
  private final Ticker ticker;
  private final ExecutorService refiller;
  private final AtomicLong waits = new AtomicLong();
  private final AtomicLong refills = new AtomicLong();
  private final AtomicLong refillFailures = new AtomicLong();

  /** Read without the lock on the fast path; replaced only under the lock. */
  volatile RangeBlock current = RangeBlock.EMPTY;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  // Everything below is guarded by lock.
  private final ReservedRanges ready;
  private boolean refilling;
  private long completedRefills;
  private LeafException lastFailure;
  private long lastFailureAt;
  private boolean closed;

  /** IDs received in reservations so far. */
  private long idsReserved;

  /** IDs still cached when the generator was closed. */
  private long idsDropped;

  RangeSupply(
      LeafClient client, String bizTag, Duration maxWait, Ticker ticker, ReservedRanges ready) {
    this.client = client;
    this.bizTag = bizTag;
    this.maxWaitNanos = maxWait.toNanos();
    this.ticker = ticker;
    this.ready = ready;
    this.refiller =
        Executors.newSingleThreadExecutor(
            runnable -> {
              Thread t = new Thread(runnable, "leaf-id-refill-" + bizTag);
              t.setDaemon(true);
              return t;
            });
  }

  /** Up to {@code n} IDs of {@code b}, asking for the next reservation at its refill point. */
  IdRange take(RangeBlock b, long n) {
    long first = b.takeRange(n);
    if (first == NONE) {
      return null;
    }
    long end = first + Math.min(n, b.end - first);
    if (b.passesRefill(first, end - 1)) {
      b.refillPointTaken();
      requestRefill();
    }
    return new IdRange(first, end);
  }

  /** The slow path: the next range, or a wait for the reservation being fetched. */
  IdRange slow(long n) {
    lock.lock();
    try {
      long entered = completedRefills;
      long remaining = maxWaitNanos;
      boolean waited = false;
      while (true) {
        if (closed) {
          throw new IllegalStateException("CachedIdGenerator for " + bizTag + " is closed");
        }
        RangeBlock b = current;
        IdRange r = take(b, n);
        if (r != null) {
          return r;
        }
        if (b.exhaustedAt < 0) {
          b.exhaustedAt = ticker.read();
        }
        if (!ready.isEmpty()) {
          current = ready.advance(b, ticker.read());
          continue;
        }
        if (lastFailure != null && lastFailureAt > entered) {
          // The fetch this call waited for failed: report it rather than wait for another.
          throw lastFailure.rethrowable();
        }
        startRefillIfIdle();
        if (!waited) {
          waited = true;
          waits.incrementAndGet();
        }
        if (remaining <= 0) {
          throw new IdWaitTimeoutException(
              "no IDs for biz_tag "
                  + bizTag
                  + " within "
                  + TimeUnit.NANOSECONDS.toMillis(maxWaitNanos)
                  + " ms (a reservation of "
                  + ready.nextSize()
                  + " IDs still being fetched)",
              null);
        }
        remaining = changed.awaitNanos(remaining);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LeafException(
          Status.Code.CANCELLED, "interrupted while waiting for IDs of biz_tag " + bizTag, e);
    } finally {
      lock.unlock();
    }
  }

  /** Starts a fetch unless one is running, a reservation waits, or the supply is closed. */
  void requestRefill() {
    lock.lock();
    try {
      startRefillIfIdle();
    } finally {
      lock.unlock();
    }
  }

  /** Lock held: starts a fetch unless one is running, a reservation waits, or closed. */
  private void startRefillIfIdle() {
    if (closed || refilling || ready.hasQueuedReservation()) {
      return;
    }
    int size = ready.nextSize();
    refilling = true;
    refills.incrementAndGet();
    try {
      refiller.execute(() -> refill(size));
    } catch (RejectedExecutionException e) {
      refilling = false;
    }
  }

  private void refill(int size) {
    List<IdRange> ranges = null;
    LeafException failure = null;
    Error fatal = null;
    try {
      ranges = client.reserveIds(bizTag, size);
    } catch (LeafException e) {
      failure = e;
    } catch (RuntimeException | Error e) {
      // An Error must still clear the refilling flag below, or no fetch would ever start again;
      // it is rethrown once the generator's state is consistent.
      failure =
          new LeafException(
              Status.Code.INTERNAL, "fetching IDs of biz_tag " + bizTag + " failed: " + e, e);
      if (e instanceof Error err) {
        fatal = err;
      }
    }
    lock.lock();
    try {
      refilling = false;
      completedRefills++;
      if (closed) {
        return;
      }
      if (ranges != null) {
        ready.add(ranges, size);
        idsReserved += size;
      } else {
        refillFailures.incrementAndGet();
        lastFailure = failure;
        lastFailureAt = completedRefills;
        log.log(
            System.Logger.Level.DEBUG,
            "reserving IDs of biz_tag {0} failed: {1}",
            bizTag,
            failure.getMessage());
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    if (fatal != null) {
      throw fatal;
    }
  }

  /** How many calls found every reserved range used up and had to wait. */
  long waits() {
    return waits.get();
  }

  /** How many reservations were asked for so far. */
  long refills() {
    return refills.get();
  }

  /** How many reservations failed (the server's answer or the call). */
  long refillFailures() {
    return refillFailures.get();
  }

  /**
   * How many IDs this generator handed out so far (IDs received in reservations, less those still
   * cached and those dropped at close). Takes the lock; meant for metrics, not the hot path.
   */
  long idsServed() {
    lock.lock();
    try {
      return idsReserved - idsDropped - cachedLocked();
    } finally {
      lock.unlock();
    }
  }

  /** How many reserved IDs are cached and not handed out yet. Takes the lock, as idsServed. */
  long idsLeft() {
    lock.lock();
    try {
      return cachedLocked();
    } finally {
      lock.unlock();
    }
  }

  /** Lock held: the IDs left in the current range and the queued ones. */
  private long cachedLocked() {
    return current.remaining() + ready.remaining();
  }

  /** The number of IDs the next reservation asks for. */
  int blockSize() {
    lock.lock();
    try {
      return ready.nextSize();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops the refill thread (interrupting a fetch in flight) and drops the cached IDs; waiting and
   * later calls throw {@link IllegalStateException}. Idempotent.
   */
  void close() {
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      idsDropped += cachedLocked();
      current = RangeBlock.EMPTY;
      ready.clear();
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    refiller.shutdownNow();
    try {
      refiller.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
