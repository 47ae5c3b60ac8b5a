package io.leaf.client;

import com.google.common.base.Ticker;
import java.time.Duration;
import java.util.Objects;

/**
 * IDs of one business tag served from ranges reserved with ReserveIds, so {@link #next()} is one
 * atomic increment within the current range and one bounds check.
 *
 * <p>The caller owns every ID of a range. The next reservation is fetched in the background once a
 * fraction (default 10%) of the current one is used.
 *
 * <p>{@link #next()} and {@link #nextRange} take a lock only to move to the next range, and wait
 * (bounded by the maximum wait) only when every reserved range is used up. Reservation sizes follow
 * the consumption rate: each is sized to last about the target refill interval at the rate the
 * previous one was used, within {@code [minBlockSize, maxBlockSize]}. One background thread
 * fetches, at most one reservation at a time.
 *
 * <p>Thread-safe. IDs are unique across threads; each thread's IDs increase against one server (a
 * reservation's ranges ascend, and the server answers a later reservation above an earlier one).
 * IDs still cached when the generator is closed (or the process ends) are lost, which leaves gaps,
 * never repeats.
 */
public final class CachedIdGenerator implements AutoCloseable {

  private final RangeSupply supply;

  private CachedIdGenerator(Builder b) {
    this.supply =
        new RangeSupply(
            b.client,
            b.bizTag,
            b.maxWait,
            b.ticker,
            new ReservedRanges(
                new BlockSizer(b.minBlockSize, b.maxBlockSize, b.targetRefillInterval.toNanos()),
                b.refillFraction,
                b.ticker.read()));
  }

  /** A generator for {@code bizTag} fetching through {@code client} (which it does not close). */
  public static Builder builder(LeafClient client, String bizTag) {
    return new Builder(
        Objects.requireNonNull(client, "client"), Objects.requireNonNull(bizTag, "bizTag"));
  }

  /**
   * The next ID of the tag.
   *
   * @throws IdWaitTimeoutException every range was used up and none arrived within the maximum wait
   * @throws LeafException the fetch this call waited for failed (typed by its status)
   * @throws IllegalStateException the generator is closed
   */
  public long next() {
    // The fast path: one atomic add and one bounds check against the block's fastEnd (the
    // refill point, then its end); everything else is in afterFastEnd, out of line.
    RangeBlock b = supply.current;
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
        supply.requestRefill();
      }
      return id;
    }
    return supply.slow(1).start();
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
    IdRange r = supply.take(supply.current, n);
    return r != null ? r : supply.slow(n);
  }

  /** How many calls found every reserved range used up and had to wait. */
  public long waits() {
    return supply.waits();
  }

  /** How many reservations were asked for so far. */
  public long refills() {
    return supply.refills();
  }

  /** How many reservations failed (the server's answer or the call). */
  public long refillFailures() {
    return supply.refillFailures();
  }

  /**
   * How many IDs this generator handed out so far (IDs received in reservations, less those still
   * cached and those dropped at close). Takes the lock; meant for metrics, not the hot path.
   */
  public long idsServed() {
    return supply.idsServed();
  }

  /** How many reserved IDs are cached and not handed out yet. Takes the lock, as idsServed. */
  public long idsLeft() {
    return supply.idsLeft();
  }

  /** The number of IDs the next reservation asks for. */
  public int blockSize() {
    return supply.blockSize();
  }

  /**
   * Stops the refill thread (interrupting a fetch in flight) and drops the cached IDs; waiting and
   * later {@link #next()} calls throw {@link IllegalStateException}. Idempotent.
   */
  @Override
  public void close() {
    supply.close();
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
     * The largest reservation (default 1,000,000); at most the server's {@code --max-batch}
     * (default 10,000,000).
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
        throw new IllegalArgumentException(
            "minBlockSize must be between 1 and maxBlockSize ("
                + maxBlockSize
                + "), got "
                + minBlockSize);
      }
      if (maxBlockSize > SERVER_MAX_BATCH) {
        throw new IllegalArgumentException(
            "maxBlockSize must be at most " + SERVER_MAX_BATCH + ", got " + maxBlockSize);
      }
      CachedIdGenerator generator = new CachedIdGenerator(this);
      generator.supply.requestRefill();
      return generator;
    }
  }
}
