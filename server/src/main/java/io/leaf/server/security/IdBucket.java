package io.leaf.server.security;

import com.google.common.base.Ticker;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One token's rate limit: a token bucket counted in IDs that refills at {@link IdRate#perSecond},
 * holds at most {@link IdRate#burst} and starts full. Thread-safe.
 *
 * <p>It is kept as its theoretical arrival time (the generic cell rate algorithm), so a take is one
 * compare-and-set of one {@code long}, with no lock, no allocation and no timer thread.
 *
 * <p>Time comes from the injected {@link Ticker}, so tests move it by hand.
 */
public final class IdBucket {

  /** {@link #take}: the IDs were granted. */
  public static final long GRANTED = 0;

  /** {@link #take}: more IDs than the burst, which no wait ever grants. */
  public static final long NEVER = -1;

  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  private final IdRate rate;
  private final Ticker ticker;

  /** Nanoseconds the burst is worth: how far ahead of now the arrival time may run. */
  private final long tolerance;

  /** When the bucket would be full again if nothing more were taken (ticker nanoseconds). */
  private final AtomicLong arrival;

  public IdBucket(IdRate rate, Ticker ticker) {
    this.rate = rate;
    this.ticker = ticker;
    this.tolerance = cost(rate.burst());
    this.arrival = new AtomicLong(ticker.read());
  }

  public IdRate rate() {
    return rate;
  }

  /**
   * Takes {@code ids} IDs if the bucket holds them.
   *
   * @return {@link #GRANTED}; else the nanoseconds until it will hold them (at least 1), or {@link
   *     #NEVER} when {@code ids} is more than the burst
   */
  public long take(long ids) {
    if (ids <= 0) {
      return GRANTED;
    }
    if (ids > rate.burst()) {
      return NEVER;
    }
    long cost = cost(ids);
    while (true) {
      long now = ticker.read();
      long current = arrival.get();
      long next = (current - now > 0 ? current : now) + cost;
      long ahead = next - now - tolerance;
      if (ahead > 0) {
        return ahead;
      }
      if (arrival.compareAndSet(current, next)) {
        return GRANTED;
      }
    }
  }

  /** Nanoseconds {@code ids} IDs are worth, rounded up; at most 10^18 (both bounded by 10^9). */
  private long cost(long ids) {
    return (ids * NANOS_PER_SECOND + rate.perSecond() - 1) / rate.perSecond();
  }
}
