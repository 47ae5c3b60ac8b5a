package io.leaf.server.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** The run a frozen buffer hands back, and the seal that freezes a segment. */
class UnissuedRunTest {

  private static UnissuedRun of(long[]... sealed) {
    return UnissuedRun.of("t", sealed);
  }

  @Test
  void of_currentOnly_itsRest() {
    assertEquals(new UnissuedRun("t", 40, 101), of(new long[] {1, 101, 40}));
  }

  @Test
  void of_currentUsedUp_none() {
    assertNull(of(new long[] {1, 101, 101}));
  }

  @Test
  void of_untouchedNextContiguous_currentRestThroughTheNext() {
    assertEquals(
        new UnissuedRun("t", 40, 201), of(new long[] {1, 101, 40}, new long[] {101, 201, 101}));
  }

  @Test
  void of_nextNotContiguous_onlyTheNext() {
    // Another server took [101, 151) between the two loads.
    assertEquals(
        new UnissuedRun("t", 151, 251), of(new long[] {1, 101, 40}, new long[] {151, 251, 151}));
  }

  @Test
  void of_nextPartlyTakenByAReservation_fromWhereTheReservationStopped() {
    assertEquals(
        new UnissuedRun("t", 130, 201), of(new long[] {1, 101, 101}, new long[] {101, 201, 130}));
  }

  @Test
  void of_nextUsedUp_none() {
    assertNull(of(new long[] {1, 101, 40}, new long[] {101, 201, 201}));
  }

  @Test
  void seal_returnsTheFirstUnissuedAndNothingLeavesAfter() {
    Segment s = new Segment(10, 20, 10);
    s.take();
    s.takeRange(3);
    assertEquals(14, s.seal());
    assertEquals(Segment.EXHAUSTED, s.take());
    assertEquals(Segment.EXHAUSTED, s.takeRange(5));
    assertEquals(20, s.seal(), "sealed twice: nothing unissued");
  }

  @Test
  void seal_exhaustedSegment_end() {
    Segment s = new Segment(10, 12, 2);
    s.take();
    s.take();
    s.take();
    assertEquals(12, s.seal());
  }
}
