package io.leaf.client;

import java.util.ArrayDeque;
import java.util.List;

/**
 * The reserved ranges waiting behind the current one, and the sizing of the next reservation from
 * how fast the last one was used.
 *
 * <p>Not thread-safe: {@link CachedIdGenerator} calls it under its lock.
 */
final class ReservedRanges {

  private final ArrayDeque<RangeBlock> ready = new ArrayDeque<>();
  private final BlockSizer sizer;
  private final double refillFraction;

  /** When the first range of the reservation in use became current. */
  private long reservationSince;

  ReservedRanges(BlockSizer sizer, double refillFraction, long nowNanos) {
    this.sizer = sizer;
    this.refillFraction = refillFraction;
    this.reservationSince = nowNanos;
  }

  boolean isEmpty() {
    return ready.isEmpty();
  }

  /**
   * True while a whole fetched reservation waits (its first range is queued): no further fetch is
   * needed yet. At most two reservations of three ranges are queued, so the scan is short.
   */
  boolean hasQueuedReservation() {
    for (RangeBlock b : ready) {
      if (b.first) {
        return true;
      }
    }
    return false;
  }

  /** The size of the next reservation to ask for. */
  int nextSize() {
    return sizer.size();
  }

  /** One block per range; taking the ID at {@code refillFraction} of the total asks again. */
  void add(List<IdRange> ranges, long size) {
    long refillOffset = Math.min(size - 1, (long) (size * refillFraction));
    for (int i = 0; i < ranges.size(); i++) {
      IdRange r = ranges.get(i);
      long refillAt =
          refillOffset >= 0 && refillOffset < r.size() ? r.start() + refillOffset : RangeBlock.NONE;
      refillOffset -= r.size();
      ready.add(
          new RangeBlock(r.start(), r.end(), refillAt, i == ranges.size() - 1 ? size : 0, i == 0));
    }
  }

  /** The block after {@code used} (found used up at its {@code exhaustedAt}); there is one. */
  RangeBlock advance(RangeBlock used, long nowNanos) {
    if (used.reservationSize > 0) {
      // The last range of a reservation: the whole reservation's lifetime sizes the next one.
      sizer.blockUsed((int) used.reservationSize, used.exhaustedAt - reservationSince);
      reservationSince = nowNanos;
    } else if (used == RangeBlock.EMPTY) {
      reservationSince = nowNanos;
    }
    return ready.poll();
  }

  /** The IDs in the queued blocks (none of them is taken from yet). */
  long remaining() {
    long n = 0;
    for (RangeBlock b : ready) {
      n += b.remaining();
    }
    return n;
  }

  void clear() {
    ready.clear();
  }
}
