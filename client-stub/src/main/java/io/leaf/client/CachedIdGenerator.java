package io.leaf.client;

import com.google.common.base.Ticker;
import io.grpc.Status;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * IDs of one business tag served from ranges reserved with ReserveIds: the caller owns every ID of
 * a range, so {@link #next()} is one atomic increment within the current range and one bounds
 * check. The next reservation is fetched in the background once a fraction (default 10%) of the
 * current one is used.
 *
 * <p>{@link #next()} and {@link #nextRange} take a lock only to move to the next range, and wait
 * (bounded by the maximum wait) only when every reserved range is used up. Reservation sizes
 * follow the consumption rate: each is sized to last about the target refill interval at the rate
 * the previous one was used, within {@code [minBlockSize, maxBlockSize]}. One background thread
 * fetches, at most one reservation at a time.
 *
 * <p>Thread-safe. IDs are unique across threads; each thread's IDs increase against one server
 * (a reservation's ranges ascend, and the server answers a later reservation above an earlier
 * one). IDs still cached when the generator is closed (or the process ends) are lost, which
 * leaves gaps, never repeats.
 */
public final class CachedIdGenerator implements AutoCloseable {

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
  private volatile RangeBlock current = RangeBlock.EMPTY;

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

  private CachedIdGenerator(Builder b) {
    this.client = b.client;
    this.bizTag = b.bizTag;
    this.maxWaitNanos = b.maxWait.toNanos();
    this.ticker = b.ticker;
    this.ready = new ReservedRanges(new BlockSizer(b.minBlockSize, b.maxBlockSize,
        b.targetRefillInterval.toNanos()), b.refillFraction, b.ticker.read());
    this.refiller = Executors.newSingleThreadExecutor(runnable -> {
      Thread t = new Thread(runnable, "leaf-id-refill-" + bizTag);
      t.setDaemon(true);
      return t;
    });
  }

  /** A generator for {@code bizTag} fetching through {@code client} (which it does not close). */
  public static Builder builder(LeafClient client, String bizTag) {
    return new Builder(Objects.requireNonNull(client, "client"),
        Objects.requireNonNull(bizTag, "bizTag"));
  }

  /**
   * The next ID of the tag.
   *
   * @throws IdWaitTimeoutException every range was used up and none arrived within the maximum
   *     wait
   * @throws LeafException the fetch this call waited for failed (typed by its status)
   * @throws IllegalStateException the generator is closed
   */
  public long next() {
    // The fast path: one atomic add and one bounds check against the block's fastEnd (the
    // refill point, then its end); everything else is in afterFastEnd, out of line.
    RangeBlock b = current;
    long id = b.takeOne();
    if (id < b.fastEnd && id >= b.start) {
      return id;
    }
    return afterFastEnd(b, id);
  }

  /** {@code id} was taken from {@code b} at or past its fast end: the refill point, or beyond. */
  private long afterFastEnd(RangeBlock b, long id) {
    if (b.holds(id)) {
      if (id == b.refillAt) {
        b.refillPointTaken();
        requestRefill();
      }
      return id;
    }
    return slow(1).start();
  }

  /**
   * Up to {@code n} consecutive IDs, at least one: fewer than {@code n} when the current range
   * holds fewer, so a caller wanting exactly {@code n} asks again for the rest.
   *
   * @throws IllegalArgumentException {@code n} is not positive
   * @throws IdWaitTimeoutException as {@link #next()}
   * @throws LeafException as {@link #next()}
   * @throws IllegalStateException the generator is closed
   */
  public IdRange nextRange(long n) {
    if (n < 1) {
      throw new IllegalArgumentException("n must be positive: " + n);
    }
    IdRange r = take(current, n);
    return r != null ? r : slow(n);
  }

  /** Up to {@code n} IDs of {@code b}, asking for the next reservation at its refill point. */
  private IdRange take(RangeBlock b, long n) {
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

  private IdRange slow(long n) {
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
          throw new IdWaitTimeoutException("no IDs for biz_tag " + bizTag + " within "
              + TimeUnit.NANOSECONDS.toMillis(maxWaitNanos) + " ms (a reservation of "
              + ready.nextSize() + " IDs still being fetched)", null);
        }
        remaining = changed.awaitNanos(remaining);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LeafException(Status.Code.CANCELLED,
          "interrupted while waiting for IDs of biz_tag " + bizTag, e);
    } finally {
      lock.unlock();
    }
  }

  private void requestRefill() {
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
      failure = new LeafException(Status.Code.INTERNAL, "fetching IDs of biz_tag " + bizTag
          + " failed: " + e, e);
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
        log.log(System.Logger.Level.DEBUG, "reserving IDs of biz_tag {0} failed: {1}", bizTag,
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
  public long waits() {
    return waits.get();
  }

  /** How many reservations were asked for so far. */
  public long refills() {
    return refills.get();
  }

  /** How many reservations failed (the server's answer or the call). */
  public long refillFailures() {
    return refillFailures.get();
  }

  /**
   * How many IDs this generator handed out so far (IDs received in reservations, less those still
   * cached and those dropped at close). Takes the lock; meant for metrics, not the hot path.
   */
  public long idsServed() {
    lock.lock();
    try {
      return idsReserved - idsDropped - cachedLocked();
    } finally {
      lock.unlock();
    }
  }

  /** How many reserved IDs are cached and not handed out yet. Takes the lock, as {@link #idsServed}. */
  public long idsLeft() {
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
  public int blockSize() {
    lock.lock();
    try {
      return ready.nextSize();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops the refill thread (interrupting a fetch in flight) and drops the cached IDs; waiting
   * and later {@link #next()} calls throw {@link IllegalStateException}. Idempotent.
   */
  @Override
  public void close() {
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

  /** Configures a {@link CachedIdGenerator}; bad values are rejected at once. */
  public static final class Builder {

    /** The server's default limit on one ReserveIds. */
    static final int SERVER_MAX_BATCH = 10_000_000;

    private final LeafClient client;
    private final String bizTag;
    private double refillFraction = 0.1;
    private int minBlockSize = 1_000;
    private int maxBlockSize = 1_000_000;
    private Duration targetRefillInterval = Duration.ofSeconds(5);
    private Duration maxWait = Duration.ofSeconds(5);
    private Ticker ticker = Ticker.systemTicker();

    private Builder(LeafClient client, String bizTag) {
      this.client = client;
      this.bizTag = bizTag;
    }

    /** Reserve again once this fraction of the current reservation is used (default 0.1). */
    public Builder refillThreshold(double fraction) {
      if (!(fraction >= 0 && fraction < 1)) {
        throw new IllegalArgumentException("refillThreshold must be in [0, 1), got " + fraction);
      }
      this.refillFraction = fraction;
      return this;
    }

    /** The smallest reservation, also the first one (default 1,000). */
    public Builder minBlockSize(int size) {
      this.minBlockSize = size;
      return this;
    }

    /**
     * The largest reservation (default 1,000,000); at most the server's {@code --max-batch} (default
     * 10,000,000).
     */
    public Builder maxBlockSize(int size) {
      this.maxBlockSize = size;
      return this;
    }

    /** How long a reservation should last at the current rate (default 5 s). */
    public Builder targetRefillInterval(Duration interval) {
      this.targetRefillInterval = positive(interval, "targetRefillInterval");
      return this;
    }

    /** The longest a call waits when every reserved range is used up (default 5 s). */
    public Builder maxWait(Duration maxWait) {
      this.maxWait = positive(maxWait, "maxWait");
      return this;
    }

    /** The time source for measuring how fast reservations are used (default the system ticker). */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    private static Duration positive(Duration d, String name) {
      Objects.requireNonNull(d, name);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " must be positive: " + d);
      }
      return d;
    }

    /** Builds the generator and starts fetching its first reservation. */
    public CachedIdGenerator build() {
      if (minBlockSize < 1 || minBlockSize > maxBlockSize) {
        throw new IllegalArgumentException("minBlockSize must be between 1 and maxBlockSize ("
            + maxBlockSize + "), got " + minBlockSize);
      }
      if (maxBlockSize > SERVER_MAX_BATCH) {
        throw new IllegalArgumentException("maxBlockSize must be at most " + SERVER_MAX_BATCH
            + ", got " + maxBlockSize);
      }
      CachedIdGenerator generator = new CachedIdGenerator(this);
      generator.requestRefill();
      return generator;
    }
  }
}
