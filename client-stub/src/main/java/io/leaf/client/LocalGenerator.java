package io.leaf.client;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Makes the snowflake IDs of one leased worker ID in this process, each greater than the last and
 * never one a previous holder of the worker made.
 *
 * <p>The server's clock rule: an ID's timestamp is the later of the wall clock and the last one
 * used; a full millisecond borrows the next one, at most {@link #MAX_BORROW_MS} ahead of a
 * reference clock that follows the wall clock forward and the monotonic clock through a step back
 * (beyond it, {@link #next()} waits for the reference clock: the layout's rate). The layout (epoch
 * and bits) is the server's, as the lease carries it.
 *
 * <p>Cost: one short lock, one wall-clock and one monotonic read per ID. Thread-safe.
 */
final class LocalGenerator {

  /*
   * It issues only while the lease is known valid by the monotonic clock, only at timestamps from
   * the lease's floor to its ceiling, never after a wall clock step back below the last timestamp
   * used.
   */

  /** How far IDs may borrow milliseconds ahead of the reference clock (the server's bound). */
  static final long MAX_BORROW_MS = 1_000;

  /** The widest rotating start of a millisecond's sequence (the server's {@code SequenceStart}). */
  private static final int MAX_START_WINDOW = 64;

  private static final long NOT_YET = Long.MIN_VALUE;

  private final LongSupplier wallMs;
  private final LongSupplier nanos;

  private Layout layout;
  private int workerId = -1;
  private String refusal = "no worker lease yet: LocalSnowflakeIds is leasing a worker ID";
  private long issueFromNanos;
  private long validUntilNanos;
  private long floorMs;
  private long ceilingMs;
  private boolean raised;

  private long anchorMs;
  private long anchorNanos;

  private long lastMs = Long.MIN_VALUE;
  private int nextSequence;
  private int startWindow = 1;
  private int nextStart;

  /** The server's layout of IDs. */
  record Layout(long epochMs, int timestampBits, int workerIdBits, int sequenceBits) {

    long maxTimestampMs() {
      return epochMs + (1L << timestampBits) - 1;
    }

    int maxSequence() {
      return (1 << sequenceBits) - 1;
    }

    long compose(long timestampMs, int workerId, int sequence) {
      return ((timestampMs - epochMs) << (workerIdBits + sequenceBits))
          | ((long) workerId << sequenceBits)
          | sequence;
    }
  }

  LocalGenerator(LongSupplier wallMs, LongSupplier nanos) {
    this.wallMs = wallMs;
    this.nanos = nanos;
    this.anchorMs = wallMs.getAsLong();
    this.anchorNanos = nanos.getAsLong();
  }

  /**
   * The next ID; waits (at most about a millisecond at a time) only when this worker's sequence is
   * used up {@link #MAX_BORROW_MS} ahead of the clock.
   *
   * @throws NoWorkerLeaseException no lease known valid now, or the timestamp is past its ceiling
   */
  long next() {
    while (true) {
      long id = tryNext();
      if (id >= 0) {
        return id;
      }
      // More than the layout's rate for a whole second: wait for the clock (this thread only).
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100));
    }
  }

  /** The next ID, or -1 when the sequence is used up {@link #MAX_BORROW_MS} ahead. */
  synchronized long tryNext() {
    long now = nanos.getAsLong();
    if (workerId < 0) {
      throw new NoWorkerLeaseException(refusal);
    }
    if (now - issueFromNanos < 0) {
      throw new NoWorkerLeaseException(
          "worker ID "
              + workerId
              + " is quarantined until any earlier holder has certainly stopped; IDs start in "
              + TimeUnit.NANOSECONDS.toMillis(issueFromNanos - now + 999_999)
              + " ms");
    }
    if (now - validUntilNanos >= 0) {
      throw new NoWorkerLeaseException(
          "the lease of worker ID "
              + workerId
              + " was not renewed in time (the server or the network is away, or this process"
              + " was paused); no ID until it is renewed or another worker ID is leased");
    }
    if (!raised) {
      raise(floorMs, now);
      raised = true;
    }
    long wall = wallMs.getAsLong();
    long reference = reference(wall, now);
    long ts = Math.max(wall, lastMs);
    int sequence;
    if (ts == lastMs) {
      sequence = nextSequence;
    } else {
      sequence = nextStart;
      nextStart = (nextStart + 1) & (startWindow - 1);
    }
    if (sequence > layout.maxSequence()) {
      ts++;
      sequence = 0;
    }
    if (ts > reference + MAX_BORROW_MS) {
      return -1;
    }
    if (ts > ceilingMs) {
      throw new NoWorkerLeaseException(
          "the lease of worker ID "
              + workerId
              + " covers timestamps up to "
              + ceilingMs
              + " only (its renewal is late, or this clock runs ahead of the server's by more"
              + " than the lease's TTL)");
    }
    if (ts > layout.maxTimestampMs()) {
      throw new NoWorkerLeaseException(
          "the snowflake layout ran out at " + layout.maxTimestampMs() + " (Unix ms)");
    }
    lastMs = ts;
    nextSequence = sequence + 1;
    return layout.compose(ts, workerId, sequence);
  }

  /**
   * Issues as {@code workerId} from {@code issueFromNanos} until {@code validUntilNanos}, at
   * timestamps from {@code floorMs} to {@code ceilingMs}. A renewal of the same worker never moves
   * the start earlier nor the floor or ceiling down.
   */
  synchronized void grant(
      int workerId,
      Layout layout,
      long floorMs,
      long ceilingMs,
      long issueFromNanos,
      long validUntilNanos) {
    if (this.layout != null && !this.layout.equals(layout)) {
      revoke("the server's snowflake layout changed from " + this.layout + " to " + layout);
      throw new NoWorkerLeaseException("the server's snowflake layout changed: " + layout);
    }
    if (this.layout == null) {
      this.layout = layout;
      int window = Math.min(MAX_START_WINDOW, (layout.maxSequence() + 1) / 4);
      this.startWindow = window < 1 ? 1 : Integer.highestOneBit(window);
    }
    boolean same = workerId == this.workerId;
    if (floorMs - 1 > lastMs) {
      lastMs = floorMs - 1;
      nextSequence = layout.maxSequence() + 1;
    } else if (!same) {
      // Another worker's sequence: the IDs keep increasing all the same.
      nextSequence = layout.maxSequence() + 1;
    }
    if (!same || floorMs > this.floorMs) {
      raised = false;
    }
    this.issueFromNanos =
        same && this.issueFromNanos - issueFromNanos > 0 ? this.issueFromNanos : issueFromNanos;
    this.floorMs = same ? Math.max(this.floorMs, floorMs) : floorMs;
    this.ceilingMs = same ? Math.max(this.ceilingMs, ceilingMs) : ceilingMs;
    this.validUntilNanos = validUntilNanos;
    this.workerId = workerId;
  }

  /** Stops issuing: every call is refused with {@code why} until the next {@link #grant}. */
  synchronized void revoke(String why) {
    workerId = -1;
    refusal = why;
  }

  /** Whether an ID could be made now as far as the lease is concerned. */
  synchronized boolean ready() {
    long now = nanos.getAsLong();
    return workerId >= 0 && now - issueFromNanos >= 0 && now - validUntilNanos < 0;
  }

  synchronized int workerId() {
    return workerId;
  }

  /** The timestamp of the last ID made (or the floor it starts above). */
  synchronized long lastTimestampMs() {
    return lastMs;
  }

  /** The later of the wall clock and the last reference plus the monotonic time since. */
  private long reference(long wall, long now) {
    long reference = anchorMs + (now - anchorNanos) / 1_000_000;
    if (wall > reference) {
      anchorMs = wall;
      anchorNanos = now;
      return wall;
    }
    return reference;
  }

  /** From now on the reference clock is at least {@code ms} (a floor ahead of the wall clock). */
  private void raise(long ms, long now) {
    if (ms > anchorMs + (now - anchorNanos) / 1_000_000) {
      anchorMs = ms;
      anchorNanos = now;
    }
  }
}
