package io.leaf.server.engine;

import io.leaf.server.store.SegmentRange;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One range of IDs {@code [start, end)} held in memory, issued by an atomic cursor.
 *
 * <p>Thread-safe and lock-free: {@link #take()} is one {@code getAndAdd}. The cursor may run past
 * {@code end} by at most the number of racing callers, and a value outside the range reads as
 * {@link #EXHAUSTED}, so an ID is issued at most once and nothing past {@code end} ever leaves.
 */
final class Segment {

  /** Returned by {@link #take()} and {@link #takeRange} when the segment has no ID left. */
  static final long EXHAUSTED = Long.MIN_VALUE;

  /** The placeholder of a buffer that has not loaded yet: it is always exhausted. */
  static final Segment EMPTY = new Segment(0, 0, 0);

  private static final VarHandle CURSOR;
  private static final VarHandle PRELOAD_CLAIMED;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      CURSOR = lookup.findVarHandle(Segment.class, "cursor", long.class);
      PRELOAD_CLAIMED = lookup.findVarHandle(Segment.class, "preloadClaimed", boolean.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final long start;
  final long end;
  final int step;

  /** The first ID whose issue means 10% of the segment is used: the next segment loads then. */
  final long preloadAt;

  // VarHandles instead of AtomicLong/AtomicBoolean fields: two fewer objects per cached segment.
  @SuppressWarnings("unused")
  private volatile long cursor;

  @SuppressWarnings("unused")
  private volatile boolean preloadClaimed;

  Segment(long start, long end, int step) {
    this.start = start;
    this.end = end;
    this.step = step;
    this.preloadAt = start + (end - start) / 10;
    this.cursor = start;
  }

  static Segment of(SegmentRange range) {
    return new Segment(range.start(), range.end(), range.step());
  }

  /** An empty segment at {@code s}'s end: stands for {@code s} once its rest is dropped. */
  static Segment usedUp(Segment s) {
    return new Segment(s.end, s.end, s.step);
  }

  /** The next ID, or {@link #EXHAUSTED}. */
  long take() {
    // The plain read first keeps an exhausted segment's cursor from climbing without bound.
    if (spent((long) CURSOR.getOpaque(this))) {
      return EXHAUSTED;
    }
    long id = (long) CURSOR.getAndAdd(this, 1L);
    return id >= start && id < end ? id : EXHAUSTED;
  }

  /**
   * Takes up to {@code n} consecutive IDs with one {@code getAndAdd}: returns the first, or {@link
   * #EXHAUSTED}; the range taken is {@code [first, first + min(n, end - first))}.
   */
  long takeRange(long n) {
    long cur = (long) CURSOR.getOpaque(this);
    if (spent(cur)) {
      return EXHAUSTED;
    }
    // cur is inside the segment, so want is positive and the cursor only ever moves forward.
    long want = Math.min(n, end - cur);
    long first = (long) CURSOR.getAndAdd(this, want);
    return first >= start && first < end ? first : EXHAUSTED;
  }

  /**
   * True when {@code cursor} is past the end, or wrapped past {@link Long#MAX_VALUE} by racing
   * callers of a segment at the top of the range (it then reads below {@code start}). Adding to a
   * wrapped cursor must never happen: {@code end - cursor} overflows to a negative amount that
   * would move the cursor back into IDs already issued.
   */
  private boolean spent(long cursor) {
    return cursor >= end || cursor < start;
  }

  /**
   * From now on nothing leaves this segment: one {@code getAndSet} of the cursor to {@code end}, so
   * every take racing with it either got its IDs before (below the value returned) or finds the
   * segment exhausted. Returns the first ID never issued, {@code end} when there is none.
   */
  long seal() {
    long c = (long) CURSOR.getAndSet(this, end);
    return c < start || c > end ? end : c;
  }

  /** True once, for the caller that first passes {@link #preloadAt}. */
  boolean claimPreload() {
    return !preloadClaimed && PRELOAD_CLAIMED.compareAndSet(this, false, true);
  }

  /** Lets the next caller past {@link #preloadAt} claim the preload again (after it failed). */
  void rearmPreload() {
    preloadClaimed = false;
  }

  /** The next ID this segment would issue, clamped to {@code end}. */
  long cursor() {
    long c = (long) CURSOR.getOpaque(this);
    return c < start ? end : Math.min(c, end);
  }

  boolean isExhausted() {
    return cursor() >= end;
  }
}
