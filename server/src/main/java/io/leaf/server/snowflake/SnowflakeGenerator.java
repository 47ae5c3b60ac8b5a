package io.leaf.server.snowflake;

import com.google.common.base.Ticker;
import io.leaf.server.engine.IdRanges;
import io.leaf.server.engine.LimitExceededException;
import java.time.InstantSource;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issues snowflake IDs of one worker ID at a time, each greater than the last, only while the
 * worker's lease is known valid by the monotonic clock and only at timestamps the lease table
 * covers; it never waits.
 *
 * <p>The clock rule. An ID's timestamp is the later of the wall clock and the last timestamp
 * issued, so it never decreases: when the wall clock steps back the IDs keep the last timestamp and
 * move on by one millisecond whenever its sequence is full ("borrowing" the next millisecond, which
 * is also what a full sequence does while the clock is right), until the wall clock catches up.
 * Borrowing is bounded by a {@link ReferenceClock} that follows real time even across a step back:
 * unary IDs run at most {@link #MAX_BORROW_MS} ahead of it, stream chunks at most {@link
 * #STREAM_BORROW_MS}, so a stream at full speed leaves headroom for unary calls and the ID time
 * never runs far ahead for long. A step back of any length therefore neither repeats an ID nor
 * stops the server; how far the ID time runs ahead of the wall clock is {@link #aheadOfWallMs()}.
 *
 * <p>The lease. {@link WorkerLeaseKeeper} claims a worker ID, stores in the lease table a timestamp
 * the server promises not to pass before its lease could end (the "ceiling"), and only then {@link
 * #activate}s it; every acknowledged renewal raises the ceiling and moves the fence: the monotonic
 * time (measured from when the renewal was sent) after which the server stops issuing because the
 * database may consider its lease ended. A server that claims the worker later starts above the
 * stored ceiling, so a paused process that wakes up after losing its worker ID issues nothing, and
 * even an ID it computed just before the pause cannot be repeated.
 *
 * <p>The sequence of a millisecond the wall clock reached starts at a {@link SequenceStart} value
 * (rotating, so that {@code id % 16} spreads at low traffic); a borrowed one starts at 0.
 *
 * <p>Cost: one lock, one wall-clock and one monotonic read per call. Thread-safe.
 */
public final class SnowflakeGenerator {

  private static final Logger log = LoggerFactory.getLogger(SnowflakeGenerator.class);

  /** Running further ahead of the wall clock than this is logged (at most once a minute). */
  static final long WARN_AHEAD_MS = 1_000;

  private static final long WARN_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

  /** How far unary IDs may borrow milliseconds ahead of the reference clock. */
  public static final long MAX_BORROW_MS = 1_000;

  /** How far stream chunks may borrow: less, so that unary calls always find IDs. */
  public static final long STREAM_BORROW_MS = 20;

  private final SnowflakeLayout layout;
  private final ReferenceClock clock;
  private final Ticker monotonic;

  /** Where a millisecond the wall clock reached starts its sequence (a borrowed one: 0). */
  private final SequenceStart starts;

  private int workerId = -1;

  /** Why nothing is issued while {@code workerId} is -1. */
  private RuntimeException refusal;

  private long ceilingMs;
  private long validUntilNanos;
  private long leaseExpiresMs;
  private String fenceMessage;
  private long lastMs;

  /** The next sequence number at {@code lastMs}; above the layout's maximum when it is used up. */
  private int nextSequence;

  private long borrowRefusals;
  private long issued;
  private long lastWarnNanos;
  private boolean warned;

  public SnowflakeGenerator(SnowflakeLayout layout, InstantSource wall, Ticker monotonic) {
    this.layout = layout;
    this.clock = new ReferenceClock(wall, monotonic);
    this.monotonic = monotonic;
    this.starts = new SequenceStart(layout);
    this.refusal =
        new NoWorkerLeaseException(
            "no worker lease yet: the server is claiming a" + " worker ID from the lease table");
    this.lastMs = Math.max(layout.epochMs(), wall.millis()) - 1;
    this.nextSequence = layout.maxSequence() + 1;
  }

  public SnowflakeLayout layout() {
    return layout;
  }

  /**
   * The next ID.
   *
   * @throws NoWorkerLeaseException no lease known valid now (UNAVAILABLE)
   * @throws LimitExceededException no worker ID free in {@code --worker-id-range}, or the sequence
   *     is used up {@link #MAX_BORROW_MS} ahead (RESOURCE_EXHAUSTED)
   * @throws EpochExhaustedException the layout ran out of time (OUT_OF_RANGE)
   */
  public synchronized long next() {
    long nanos = monotonic.read();
    checkLease(nanos);
    long wall = clock.wallMs();
    long reference = clock.nowMs(wall, nanos);
    long ts = Math.max(wall, lastMs);
    int sequence = ts == lastMs ? nextSequence : starts.next();
    if (sequence > layout.maxSequence()) {
      ts++;
      sequence = 0;
    }
    if (ts > reference + MAX_BORROW_MS) {
      borrowRefusals++;
      throw new LimitExceededException(
          "the sequence of this worker is used up "
              + MAX_BORROW_MS
              + " ms ahead of the clock ("
              + layout.idsPerMillisecond()
              + " IDs per millisecond)",
          layout.idsPerMillisecond(),
          "--snowflake-bits");
    }
    checkTime(ts);
    lastMs = ts;
    nextSequence = sequence + 1;
    issued++;
    if (ts - wall > WARN_AHEAD_MS) {
      warnAhead(ts - wall);
    }
    return layout.compose(ts, workerId, sequence);
  }

  /**
   * Takes up to {@code max} IDs into {@code out}, as few ranges as the milliseconds they span,
   * borrowing at most {@link #STREAM_BORROW_MS} ahead; 0 means none are free yet (try again in a
   * millisecond), never that none will be.
   *
   * @throws NoWorkerLeaseException as {@link #next()}
   * @throws EpochExhaustedException as {@link #next()}
   */
  public synchronized int take(int max, IdRanges out) {
    long nanos = monotonic.read();
    checkLease(nanos);
    long wall = clock.wallMs();
    long reference = clock.nowMs(wall, nanos);
    int taken = 0;
    while (taken < max) {
      long ts = Math.max(wall, lastMs);
      int sequence = ts == lastMs ? nextSequence : starts.next();
      if (sequence > layout.maxSequence()) {
        ts++;
        sequence = 0;
      }
      if (ts > reference + STREAM_BORROW_MS || ts > ceilingMs) {
        break;
      }
      if (ts > layout.maxTimestampMs()) {
        if (taken == 0) {
          throw new EpochExhaustedException(layout);
        }
        break;
      }
      int n = Math.min(max - taken, layout.maxSequence() + 1 - sequence);
      long first = layout.compose(ts, workerId, sequence);
      out.add(first, first + n);
      lastMs = ts;
      nextSequence = sequence + n;
      taken += n;
    }
    issued += taken;
    if (lastMs - wall > WARN_AHEAD_MS) {
      warnAhead(lastMs - wall);
    }
    return taken;
  }

  /** The wall clock is behind the IDs' time (it stepped back, or a claim's floor is ahead). */
  private void warnAhead(long aheadMs) {
    long now = monotonic.read();
    if (!warned || now - lastWarnNanos >= WARN_EVERY_NANOS) {
      warned = true;
      lastWarnNanos = now;
      log.warn(
          "snowflake ID time runs {} ms ahead of the wall clock (the clock stepped back, or"
              + " the worker's last holder ran ahead); IDs keep increasing and catch up with the"
              + " clock as it moves on (metric leaf_snowflake_ahead_of_wall_clock_ms)",
          aheadMs);
    }
  }

  /**
   * @param nanos the monotonic clock now
   */
  private void checkLease(long nanos) {
    if (workerId < 0) {
      throw refusal;
    }
    if (nanos - validUntilNanos >= 0) {
      throw new NoWorkerLeaseException(fenceMessage);
    }
  }

  private void checkTime(long ts) {
    if (ts > ceilingMs) {
      throw new NoWorkerLeaseException(
          "the lease of worker ID "
              + workerId
              + " covers IDs up to"
              + " "
              + ceilingMs
              + " ms only (the wall clock moved ahead); it is being renewed");
    }
    if (ts > layout.maxTimestampMs()) {
      throw new EpochExhaustedException(layout);
    }
  }

  /** The reference clock now: what a ceiling is computed from. */
  synchronized long referenceMs() {
    return clock.nowMs();
  }

  /**
   * Prepares to take a worker whose last holder left {@code floorMs - 1}: the reference clock moves
   * up to it, so that IDs above it may be issued at once.
   *
   * @return the reference clock now
   */
  synchronized long prepare(long floorMs) {
    clock.raiseTo(floorMs);
    return clock.nowMs();
  }

  /**
   * Starts issuing as {@code workerId}: above {@code floorMs - 1} and at most {@code ceilingMs},
   * until {@code validUntilNanos} on the monotonic clock unless renewed.
   */
  synchronized void activate(
      int workerId,
      long floorMs,
      long ceilingMs,
      long validUntilNanos,
      long leaseExpiresMs,
      String fenceMessage) {
    if (workerId != this.workerId) {
      // Another worker's sequence: keep the IDs increasing on this server as well.
      if (floorMs - 1 > lastMs) {
        lastMs = floorMs - 1;
      }
      nextSequence = layout.maxSequence() + 1;
    } else if (floorMs - 1 > lastMs) {
      lastMs = floorMs - 1;
      nextSequence = layout.maxSequence() + 1;
    }
    this.workerId = workerId;
    this.ceilingMs = Math.max(this.ceilingMs, ceilingMs);
    this.validUntilNanos = validUntilNanos;
    this.leaseExpiresMs = leaseExpiresMs;
    this.fenceMessage = fenceMessage;
  }

  /** A renewal the database acknowledged. */
  synchronized void renewed(
      int workerId, long ceilingMs, long validUntilNanos, long leaseExpiresMs) {
    if (workerId == this.workerId) {
      this.ceilingMs = Math.max(this.ceilingMs, ceilingMs);
      this.validUntilNanos = validUntilNanos;
      this.leaseExpiresMs = leaseExpiresMs;
    }
  }

  /**
   * Stops issuing: every call is refused with {@code why} until {@link #activate}.
   *
   * @return the timestamp of the last ID issued
   */
  synchronized long revoke(RuntimeException why) {
    workerId = -1;
    ceilingMs = Long.MIN_VALUE;
    refusal = why;
    return lastMs;
  }

  /** Changes why calls are refused while there is no lease. */
  synchronized void refuseWith(RuntimeException why) {
    if (workerId < 0) {
      refusal = why;
    }
  }

  /** The worker ID in use, -1 without a lease. */
  public synchronized int workerId() {
    return workerId;
  }

  /** When the lease ends by the database's clock unless renewed (epoch millis); 0 without one. */
  public synchronized long leaseExpiresMs() {
    return workerId < 0 ? 0 : leaseExpiresMs;
  }

  /** Whether an ID could be issued now as far as the lease is concerned. */
  public synchronized boolean leaseValid() {
    return workerId >= 0 && monotonic.read() - validUntilNanos < 0;
  }

  /** The timestamp of the last ID issued (or the floor it starts above). */
  public synchronized long lastTimestampMs() {
    return lastMs;
  }

  /** How far the last ID's time runs ahead of the wall clock now, in ms (0 when it does not). */
  public synchronized long aheadOfWallMs() {
    return Math.max(0, lastMs - clock.wallMs());
  }

  /** IDs issued since this generator was made, unary and streamed, under any worker ID. */
  public synchronized long issued() {
    return issued;
  }

  /** Unary calls refused because the sequence was used up {@link #MAX_BORROW_MS} ahead. */
  public synchronized long borrowRefusals() {
    return borrowRefusals;
  }
}
