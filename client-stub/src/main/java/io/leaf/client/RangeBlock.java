package io.leaf.client;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One range {@code [start, end)} of a reservation, issued by an atomic cursor: an ID is one {@code
 * getAndIncrement}, a block of IDs one {@code getAndAdd}.
 *
 * <p>Thread-safe and lock-free. The cursor may run past {@code end} by the number of racing
 * callers; anything outside the range reads as used up, so no ID leaves twice and none past {@code
 * end} leaves at all (a cursor that wrapped past 2^63-1 reads below {@code start}).
 */
final class RangeBlock {

  /** What the take methods return for a used-up block. */
  static final long NONE = Long.MIN_VALUE;

  private static final VarHandle CURSOR;

  static {
    try {
      CURSOR = MethodHandles.lookup().findVarHandle(RangeBlock.class, "cursor", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  static final RangeBlock EMPTY = new RangeBlock(0, 0, NONE, 0, false);

  final long start;
  final long end;

  /**
   * Taking this ID asks for the next reservation; {@link #NONE} in the reservation's other ranges.
   */
  final long refillAt;

  /** The reservation's size if this is its last range, else 0: the block sizer learns from it. */
  final long reservationSize;

  /** The first range of its reservation. */
  final boolean first;

  /**
   * IDs below this (and from {@code start}) need no further check: the refill point until someone
   * takes it, then {@code end}. Never above {@code end}, so reading a stale value only sends a
   * caller down the longer path, never past the range.
   */
  volatile long fastEnd;

  // A field behind a VarHandle rather than an AtomicLong: next() follows one pointer less.
  @SuppressWarnings("unused")
  private volatile long cursor;

  /** When a caller first found the block used up; guarded by the generator's lock. */
  long exhaustedAt = -1;

  RangeBlock(long start, long end, long refillAt, long reservationSize, boolean first) {
    this.start = start;
    this.end = end;
    this.refillAt = refillAt;
    this.reservationSize = reservationSize;
    this.first = first;
    this.fastEnd = refillAt != NONE && refillAt >= start && refillAt < end ? refillAt : end;
    this.cursor = start;
  }

  /**
   * Up to {@code n} consecutive IDs: returns the first, or {@link #NONE}; the IDs taken are {@code
   * [first, min(first + n, end))}.
   */
  long takeRange(long n) {
    long cur = (long) CURSOR.getVolatile(this);
    if (cur >= end || cur < start) {
      // Reading first keeps a used-up block's cursor from climbing, and from wrapping.
      return NONE;
    }
    long first = (long) CURSOR.getAndAdd(this, Math.min(n, end - cur));
    return first >= start && first < end ? first : NONE;
  }

  /** The next ID, or a value outside {@code [start, end)} when used up. */
  long takeOne() {
    return (long) CURSOR.getAndAdd(this, 1L);
  }

  /** True when {@code id} is in {@code [start, end)}. */
  boolean holds(long id) {
    return id < end && id >= start;
  }

  /** Lets every later ID of the block through the fast check, once the refill point is taken. */
  void refillPointTaken() {
    fastEnd = end;
  }

  /** How many IDs of the block are not taken yet (a snapshot while callers take them). */
  long remaining() {
    long cur = (long) CURSOR.getVolatile(this);
    return cur >= end || cur < start ? 0 : end - cur;
  }

  /** True when {@code [first, last]} holds the refill point. */
  boolean passesRefill(long first, long last) {
    return refillAt != NONE && first <= refillAt && refillAt <= last;
  }
}
