package io.leaf.server.engine;

/**
 * What the prefetch learns of a tag: its recent rate, from the lifetimes of used-up segments, and
 * its recent load latency. Both rise at once (a burst must be fed now) and fall by halves (one slow
 * segment does not starve the next burst).
 *
 * <p>Thread-safety: guarded by the tag's stripe lock; every call holds it. Times are ticker time.
 */
final class RateEstimate {

  private static final long NOT_DRY = Long.MIN_VALUE;

  /** When the current segment became current. */
  private long currentSinceNanos;

  /** 0 until a segment is used up. */
  private double idsPerNano;

  /** 0 until a load completes. */
  private long loadNanos;

  /** When a call first found the current segment used up with nothing queued; NOT_DRY otherwise. */
  private long dryAtNanos = NOT_DRY;

  double idsPerNano() {
    return idsPerNano;
  }

  long loadNanos() {
    return loadNanos;
  }

  /** The queued segment became current at {@code nowNanos}, after {@code used}. */
  void switched(Segment used, long nowNanos) {
    if (used != Segment.EMPTY) {
      learnRate(used.end - used.start, nowNanos - currentSinceNanos);
    }
    becameCurrent(nowNanos);
  }

  /** A loaded segment became current at {@code nowNanos}, after {@code used} ran dry. */
  void installed(Segment used, long nowNanos) {
    if (used != Segment.EMPTY && used.end > used.start) {
      // Its lifetime ends when it ran dry, not when this load arrived.
      learnRate(
          used.end - used.start,
          (dryAtNanos == NOT_DRY ? nowNanos : dryAtNanos) - currentSinceNanos);
    }
    becameCurrent(nowNanos);
  }

  /** A call found the current segment used up and nothing queued. */
  void ranDry(long nowNanos) {
    if (dryAtNanos == NOT_DRY) {
      dryAtNanos = nowNanos;
    }
  }

  /** A load took {@code nanos}. */
  void loadTook(long nanos) {
    loadNanos = nanos >= loadNanos ? nanos : (loadNanos + nanos) / 2;
  }

  private void becameCurrent(long nowNanos) {
    currentSinceNanos = nowNanos;
    dryAtNanos = NOT_DRY;
  }

  private void learnRate(long ids, long lifetimeNanos) {
    double rate = (double) ids / Math.max(1, lifetimeNanos);
    idsPerNano = rate >= idsPerNano ? rate : (idsPerNano + rate) / 2;
  }
}
