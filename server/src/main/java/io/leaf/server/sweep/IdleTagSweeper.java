package io.leaf.server.sweep;

import com.google.common.base.Ticker;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.engine.TagBuffer;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Evicts the cached segments of every tag that has had no request for the idle TTL, at no cost to
 * the request path beyond the last-access write the engine already makes.
 *
 * <p>The allocator hands each buffer to this sweeper once, when it stays after its first load,
 * through a lock-free {@link SweepIntake} (tags the database lacks never arrive, so a flood of
 * unknown names costs the sweeper nothing); each sweep moves it into a {@link TimingWheel}. The
 * first check comes one tick later, so a buffer that is already gone is dropped quickly; after that
 * a buffer is due at its last access plus the TTL. When it is due, its last access is read again: a
 * tag used since then is re-scheduled for the rest of its TTL, an idle one is handed to {@link
 * SegmentAllocator#evict}, which drops only that very buffer and closes it, so a request that raced
 * onto it retries on a fresh one. Its unused IDs are a gap, never issued again.
 *
 * <p>Cost: one wheel entry per cached tag; per tick O(1) plus O(1) per tag due, and a tag in use is
 * due about once per TTL. Eviction is at least the TTL and at most TTL plus one tick (plus
 * scheduling delay) after the last request.
 *
 * <p>Thread-safety: {@link #runOnce} is synchronized, so the sweeps {@link #start()} schedules on
 * the sweeper's scheduler (the server's is one thread of its own, {@code ServerThreads
 * .idleSweeper}) and a caller driving it by hand (tests) never touch the wheel at the same time.
 * Time comes from the allocator's ticker, the clock the engine stamps last accesses with.
 */
public final class IdleTagSweeper implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(IdleTagSweeper.class);

  /** Bounds the wheel's memory for a TTL of many ticks; longer TTLs use the circle counters. */
  static final int MAX_SLOTS = 1 << 16;

  /** About 73 years: effectively never, and keeps every deadline within the wheel's range. */
  private static final long MAX_TTL_NANOS = Long.MAX_VALUE / 4;

  private final SegmentAllocator allocator;
  private final Ticker ticker;
  private final long ttlNanos;
  private final long tickNanos;
  private final SweepIntake added;
  private final TimingWheel<TagBuffer> wheel;
  private final AtomicLong evictions = new AtomicLong();
  private final ScheduledExecutorService scheduler;
  private volatile ScheduledFuture<?> sweeps;

  /**
   * Creates a stopped sweeper of the buffers {@code allocator} hands to {@code intake} (its {@link
   * io.leaf.server.engine.EngineListeners#onCached}): those queued so far and from now on are
   * scheduled by the first {@link #runOnce}.
   *
   * @param scheduler runs the sweeps once {@link #start()}ed; owned from now on (shut down by
   *     {@link #close()})
   * @throws IllegalArgumentException if {@code idleTtl} or {@code tick} is not positive
   */
  public IdleTagSweeper(
      SegmentAllocator allocator,
      SweepIntake intake,
      Duration idleTtl,
      Duration tick,
      ScheduledExecutorService scheduler) {
    if (idleTtl.isNegative() || idleTtl.isZero()) {
      throw new IllegalArgumentException("idleTtl must be positive: " + idleTtl);
    }
    if (tick.isNegative() || tick.isZero()) {
      throw new IllegalArgumentException("tick must be positive: " + tick);
    }
    this.allocator = allocator;
    this.added = intake;
    this.scheduler = scheduler;
    this.ticker = allocator.ticker();
    this.ttlNanos = saturatedNanos(idleTtl);
    this.tickNanos = saturatedNanos(tick);
    int slots = (int) Math.min(MAX_SLOTS, ttlNanos / tickNanos + 1);
    this.wheel = new TimingWheel<>(tickNanos, slots, ticker.read());
  }

  /**
   * Sweeps now and then one tick after each sweep ends, on the scheduler.
   *
   * @throws IllegalStateException if already started
   */
  public synchronized IdleTagSweeper start() {
    if (sweeps != null) {
      throw new IllegalStateException("idle-tag sweeper already started");
    }
    sweeps = scheduler.scheduleWithFixedDelay(this::sweep, 0, tickNanos, TimeUnit.NANOSECONDS);
    return this;
  }

  /**
   * Schedules the buffers created since the last call, then advances the wheel to {@code nowNanos},
   * re-checking every tag that is due and evicting the idle ones.
   *
   * @param nowNanos the current time of the allocator's ticker
   * @return the number of tags evicted by this call
   */
  public synchronized int runOnce(long nowNanos) {
    for (TagBuffer b = added.poll(); b != null; b = added.poll()) {
      wheel.schedule(b, nowNanos + tickNanos);
    }
    int[] evicted = {0};
    wheel.advance(
        nowNanos,
        b -> {
          if (expire(b, nowNanos)) {
            evicted[0]++;
          }
        });
    return evicted[0];
  }

  /** Tags evicted since this sweeper was created. */
  public long evictions() {
    return evictions.get();
  }

  /** Buffers waiting in the wheel for their next check. */
  public synchronized int scheduled() {
    return wheel.size();
  }

  /** Whether sweeps are scheduled: started, and its scheduler not yet terminated. */
  public boolean isRunning() {
    return sweeps != null && !scheduler.isTerminated();
  }

  /**
   * Stops taking new buffers from the allocator and shuts the scheduler down, waiting up to five
   * seconds for a sweep in progress to end. Idempotent.
   */
  @Override
  public void close() {
    added.close();
    scheduler.shutdownNow();
    try {
      if (!scheduler.awaitTermination(5, TimeUnit.SECONDS)) {
        log.warn("idle-tag sweeper thread did not stop within 5 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Returns whether {@code b} was evicted. */
  private boolean expire(TagBuffer b, long nowNanos) {
    if (b.isClosed()) {
      // Already dropped by the allocator (its tag is not in the database): forget it.
      return false;
    }
    long last = b.lastAccessNanos();
    if (nowNanos - last < ttlNanos) {
      wheel.schedule(b, last + ttlNanos);
      return false;
    }
    if (!allocator.evict(b)) {
      return false;
    }
    evictions.incrementAndGet();
    log.debug(
        "evicted idle tag {} after {} ms without a request",
        b.bizTag(),
        TimeUnit.NANOSECONDS.toMillis(nowNanos - last));
    return true;
  }

  private void sweep() {
    try {
      runOnce(ticker.read());
    } catch (RuntimeException e) {
      // A sweep that fails must not end eviction for good; the wheel keeps its state.
      log.warn("idle-tag sweep failed; retrying next tick", e);
    }
  }

  private static long saturatedNanos(Duration d) {
    return d.compareTo(Duration.ofNanos(MAX_TTL_NANOS)) > 0 ? MAX_TTL_NANOS : d.toNanos();
  }
}
