package io.leaf.server.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.leaf.server.engine.LoadOutcome.State;
import io.leaf.server.store.SegmentRange;
import org.junit.jupiter.api.Test;

/** The decision alone: buffer states and load results in, outcomes out; no threads, no clock. */
class LoadOutcomeTest {

  private static final long NO_FLOOR = Long.MIN_VALUE;

  /** A buffer that never loaded: {@link Segment#EMPTY} is current. */
  private static final State FIRST = new State(false, false, NO_FLOOR, 0, true, false);

  private static SegmentRange range(long start) {
    return new SegmentRange(start, start + 100, 100, 100);
  }

  /** A loaded buffer whose current segment ends at 101. */
  private static State loaded(boolean exhausted, boolean nextQueued, long floor) {
    return new State(false, true, floor, 101, exhausted, nextQueued);
  }

  @Test
  void of_closedBuffer_evictedWhateverTheResult() {
    State closed = new State(true, true, NO_FLOOR, 101, true, false);
    assertEquals(LoadOutcome.EVICTED, LoadOutcome.of(closed, range(101)), "a range");
    assertEquals(LoadOutcome.EVICTED, LoadOutcome.of(closed, null), "a failure");
    State closedFirst = new State(true, false, NO_FLOOR, 0, true, false);
    assertEquals(LoadOutcome.EVICTED, LoadOutcome.of(closedFirst, range(1)), "a first load");
  }

  @Test
  void of_firstLoad_installs() {
    assertEquals(LoadOutcome.INSTALL, LoadOutcome.of(FIRST, range(1)));
  }

  @Test
  void of_failedLoad_firstFailedOnlyWithoutSegment() {
    assertEquals(LoadOutcome.FIRST_FAILED, LoadOutcome.of(FIRST, null), "never loaded");
    assertEquals(
        LoadOutcome.FAILED, LoadOutcome.of(loaded(true, false, NO_FLOOR), null), "loaded, used up");
    assertEquals(
        LoadOutcome.FAILED,
        LoadOutcome.of(loaded(false, true, NO_FLOOR), null),
        "loaded, IDs left");
  }

  @Test
  void of_rangeBelowFloor_droppedEvenWhenCurrentIsUsedUp() {
    assertEquals(
        LoadOutcome.BELOW_FLOOR,
        LoadOutcome.of(loaded(true, false, 301), range(201)),
        "[201, 301) lies below IDs reserved up to 301");
    State firstWithFloor = new State(false, false, 301, 0, true, false);
    assertEquals(
        LoadOutcome.FIRST_BELOW_FLOOR,
        LoadOutcome.of(firstWithFloor, range(201)),
        "a buffer that never loaded goes with it");
  }

  @Test
  void of_rangeStartingAtFloor_isUsed() {
    assertEquals(
        LoadOutcome.INSTALL,
        LoadOutcome.of(loaded(true, false, 301), range(301)),
        "the floor is exclusive: ID 301 was not reserved");
  }

  @Test
  void of_rangeBelowCurrentEnd_belowCurrent() {
    assertEquals(
        LoadOutcome.BELOW_CURRENT,
        LoadOutcome.of(loaded(true, false, NO_FLOOR), range(1)),
        "a load that finished after a higher one was put in use");
    assertEquals(
        LoadOutcome.BELOW_CURRENT,
        LoadOutcome.of(loaded(false, true, NO_FLOOR), range(100)),
        "overlapping the current segment by one ID");
  }

  @Test
  void of_rangeAboveCurrent_installsOnlyWhenUsedUpWithNothingQueued() {
    assertEquals(
        LoadOutcome.INSTALL,
        LoadOutcome.of(loaded(true, false, NO_FLOOR), range(101)),
        "used up, nothing queued");
    assertEquals(
        LoadOutcome.QUEUE,
        LoadOutcome.of(loaded(false, false, NO_FLOOR), range(101)),
        "IDs left in the current segment");
    assertEquals(
        LoadOutcome.QUEUE,
        LoadOutcome.of(loaded(true, true, NO_FLOOR), range(201)),
        "used up, but a segment is queued: the next request switches to it");
  }
}
