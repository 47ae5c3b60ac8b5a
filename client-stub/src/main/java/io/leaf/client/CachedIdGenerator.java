package io.leaf.client;

import com.google.common.base.Ticker;
import io.grpc.Status;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * IDs of one business tag served from a local double buffer of blocks, each block the IDs of one
 * NextIdBatch call; the next block is fetched in the background once a fraction (default 10%) of
 * the current one is used.
 *
 * <p>{@link #next()} costs one volatile read and one atomic increment while the current block
 * lasts; it takes a lock only to switch blocks, and waits (bounded by the maximum wait) only when
 * both blocks are empty. Block sizes follow the consumption rate: each block is sized to last
 * about the target refill interval at the rate the previous block was used, within
 * {@code [minBlockSize, maxBlockSize]}. One background thread does the fetching, at most one fetch
 * at a time.
 *
 * <p>Thread-safe. IDs are unique across threads and increasing within a block; IDs still cached
 * when the generator is closed (or the process ends) are lost, which leaves gaps, never repeats.
 */
public final class CachedIdGenerator implements AutoCloseable {

  private static final System.Logger log = System.getLogger(CachedIdGenerator.class.getName());
  /** What {@link #take} returns for a used-up block (the server's own "exhausted" value). */
  private static final long NONE = Long.MIN_VALUE;

  /** One batch of IDs; threads claim indexes with one atomic increment. */
  private static final class Block {
    final long[] ids;
    /** Taking the ID at this index asks for the next block. */
    final int refillAt;
    final AtomicLong cursor = new AtomicLong();
    /** When the first caller found the block used up; guarded by the generator's lock. */
    long exhaustedAt = -1;

    Block(long[] ids, int refillAt) {
      this.ids = ids;
      this.refillAt = refillAt;
    }
  }

  private final LeafClient client;
  private final String bizTag;
  private final double refillFraction;
  private final long maxWaitNanos;
  private final Ticker ticker;
  private final ExecutorService refiller;
  private final AtomicLong waits = new AtomicLong();
  private final AtomicLong refills = new AtomicLong();

  /** Read without the lock on the fast path; replaced only under the lock. */
  private volatile Block current = new Block(new long[0], -1);

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  // Everything below is guarded by lock.
  private final BlockSizer sizer;
  private Block next;
  private boolean refilling;
  private long completedRefills;
  private LeafException lastFailure;
  private long lastFailureAt;
  private long currentSince;
  private boolean closed;

  private CachedIdGenerator(Builder b) {
    this.client = b.client;
    this.bizTag = b.bizTag;
    this.refillFraction = b.refillFraction;
    this.maxWaitNanos = b.maxWait.toNanos();
    this.ticker = b.ticker;
    this.sizer = new BlockSizer(b.minBlockSize, b.maxBlockSize, b.targetRefillInterval.toNanos());
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
   * @throws IdWaitTimeoutException both blocks were empty and none arrived within the maximum wait
   * @throws LeafException the fetch this call waited for failed (typed by its status)
   * @throws IllegalStateException the generator is closed
   */
  public long next() {
    long id = take(current);
    return id != NONE ? id : nextSlow();
  }

  /** The next ID of {@code b}, asking for the next block at its refill point, or {@link #NONE}. */
  private long take(Block b) {
    long i = b.cursor.getAndIncrement();
    if (i >= b.ids.length) {
      return NONE;
    }
    if (i == b.refillAt) {
      requestRefill();
    }
    return b.ids[(int) i];
  }

  private long nextSlow() {
    lock.lock();
    try {
      long entered = completedRefills;
      long remaining = maxWaitNanos;
      boolean waited = false;
      while (true) {
        if (closed) {
          throw new IllegalStateException("CachedIdGenerator for " + bizTag + " is closed");
        }
        Block b = current;
        long id = take(b);
        if (id != NONE) {
          return id;
        }
        if (b.exhaustedAt < 0) {
          b.exhaustedAt = ticker.read();
        }
        if (next != null) {
          switchToNext(b);
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
              + TimeUnit.NANOSECONDS.toMillis(maxWaitNanos) + " ms (block of " + sizer.size()
              + " IDs still being fetched)", null);
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

  /** Lock held; {@code used} is the current block, found used up. */
  private void switchToNext(Block used) {
    if (used.ids.length > 0) {
      sizer.blockUsed(used.ids.length, used.exhaustedAt - currentSince);
    }
    currentSince = ticker.read();
    current = next;
    next = null;
  }

  private void requestRefill() {
    lock.lock();
    try {
      startRefillIfIdle();
    } finally {
      lock.unlock();
    }
  }

  /** Lock held: starts a fetch unless one is running, the next block is there, or closed. */
  private void startRefillIfIdle() {
    if (closed || refilling || next != null) {
      return;
    }
    int size = sizer.size();
    refilling = true;
    refills.incrementAndGet();
    try {
      refiller.execute(() -> refill(size));
    } catch (RejectedExecutionException e) {
      refilling = false;
    }
  }

  private void refill(int size) {
    long[] ids = null;
    LeafException failure = null;
    Error fatal = null;
    try {
      ids = client.nextIds(bizTag, size);
    } catch (LeafException e) {
      failure = e;
    } catch (RuntimeException | Error e) {
      // An Error (say, no heap for the block) must still clear the refilling flag below, or no
      // fetch would ever start again; it is rethrown once the generator's state is consistent.
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
      if (ids != null) {
        int refillAt = Math.min(ids.length - 1, (int) (ids.length * refillFraction));
        next = new Block(ids, refillAt);
      } else {
        lastFailure = failure;
        lastFailureAt = completedRefills;
        log.log(System.Logger.Level.DEBUG, "fetching a block for biz_tag {0} failed: {1}", bizTag,
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

  /** How many {@link #next()} calls found both blocks empty and had to wait. */
  public long waits() {
    return waits.get();
  }

  /** How many blocks were asked for so far. */
  public long refills() {
    return refills.get();
  }

  /** The number of IDs the next fetch asks for. */
  public int blockSize() {
    lock.lock();
    try {
      return sizer.size();
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
      current = new Block(new long[0], -1);
      next = null;
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

    /** The server's default limit on one NextIdBatch. */
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

    /** Fetch the next block once this fraction of the current one is used (default 0.1). */
    public Builder refillThreshold(double fraction) {
      if (!(fraction >= 0 && fraction < 1)) {
        throw new IllegalArgumentException("refillThreshold must be in [0, 1), got " + fraction);
      }
      this.refillFraction = fraction;
      return this;
    }

    /** The smallest block, also the first one (default 1,000). */
    public Builder minBlockSize(int size) {
      this.minBlockSize = size;
      return this;
    }

    /**
     * The largest block (default 1,000,000); at most the server's {@code --max-batch} (default
     * 10,000,000).
     */
    public Builder maxBlockSize(int size) {
      this.maxBlockSize = size;
      return this;
    }

    /** How long a block should last at the current rate (default 5 s). */
    public Builder targetRefillInterval(Duration interval) {
      this.targetRefillInterval = positive(interval, "targetRefillInterval");
      return this;
    }

    /** The longest {@link #next()} waits when both blocks are empty (default 5 s). */
    public Builder maxWait(Duration maxWait) {
      this.maxWait = positive(maxWait, "maxWait");
      return this;
    }

    /** The time source for measuring how fast blocks are used (default the system ticker). */
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

    /** Builds the generator and starts fetching its first block. */
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
      generator.currentSince = ticker.read();
      generator.requestRefill();
      return generator;
    }
  }
}
