package io.leaf.server.engine;

import io.leaf.server.store.SegmentRange;

/**
 * What a finished segment load does to its tag's buffer, decided by {@link #of} from the buffer's
 * state and the load's result alone.
 *
 * <p>Pure: no clock, no lock, no thread; {@link SegmentLoader} applies the outcome under the tag's
 * stripe lock. The order of the checks is the uniqueness rule: a range that could issue an ID below
 * one already issued or reserved on this server is never installed, it becomes a gap.
 */
enum LoadOutcome {
  /** The buffer was evicted while loading: the range is a gap, the waiters retry on a fresh one. */
  EVICTED,
  /** The range lies below IDs a reservation handed out: a gap; the waiters load again. */
  BELOW_FLOOR,
  /** {@link #BELOW_FLOOR} for a buffer that never loaded: it is dropped too, holding nothing. */
  FIRST_BELOW_FLOOR,
  /** The current segment is used up with nothing queued: the range becomes current. */
  INSTALL,
  /** The range queues behind the current segment, in ascending order. */
  QUEUE,
  /** The range lies below the segment in use (loads finished out of order): a gap, reported. */
  BELOW_CURRENT,
  /** A buffer's first load failed: the buffer goes, the failure becomes a missing-tag entry. */
  FIRST_FAILED,
  /** A load of a loaded tag failed: the tag backs off, its waiters get the failure. */
  FAILED;

  /**
   * The buffer's state a decision reads, taken under the stripe lock.
   *
   * @param loaded the buffer holds a segment ({@code currentEnd} is meaningful only then)
   * @param floor IDs below this were handed out by a reservation
   * @param nextQueued a loaded segment waits behind the current one
   */
  record State(
      boolean closed,
      boolean loaded,
      long floor,
      long currentEnd,
      boolean currentExhausted,
      boolean nextQueued) {}

  /** The outcome of a load that brought {@code range}, or failed when it is null. */
  static LoadOutcome of(State s, SegmentRange range) {
    if (s.closed()) {
      // Installed, it could still hand IDs to a request holding this buffer after the tag's fresh
      // buffer issued lower ones.
      return EVICTED;
    }
    if (range == null) {
      return s.loaded() ? FAILED : FIRST_FAILED;
    }
    if (range.start() < s.floor()) {
      return s.loaded() ? BELOW_FLOOR : FIRST_BELOW_FLOOR;
    }
    if (s.loaded() && range.start() < s.currentEnd()) {
      return BELOW_CURRENT;
    }
    return s.currentExhausted() && !s.nextQueued() ? INSTALL : QUEUE;
  }
}
