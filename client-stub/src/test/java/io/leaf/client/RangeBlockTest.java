package io.leaf.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RangeBlockTest {

  @Test
  void fastEnd_refillPointInRange_stopsThereUntilTaken() {
    RangeBlock b = new RangeBlock(100, 200, 110, 100, true);
    assertEquals(110, b.fastEnd, "the fast check stops at the refill point");
    b.refillPointTaken();
    assertEquals(200, b.fastEnd, "then it covers the rest of the range");
  }

  @Test
  void fastEnd_noRefillPointInRange_isEnd() {
    assertEquals(
        200,
        new RangeBlock(100, 200, RangeBlock.NONE, 0, false).fastEnd,
        "a range without the refill point needs no stop");
    assertEquals(
        200,
        new RangeBlock(100, 200, 250, 0, false).fastEnd,
        "a refill point outside the range is ignored, never raising fastEnd past end");
  }

  @Test
  void holds_idsOutsideRange_false() {
    RangeBlock b = new RangeBlock(100, 200, 110, 100, true);
    assertTrue(b.holds(100) && b.holds(199), "both ends of [100, 200)");
    assertFalse(
        b.holds(99) || b.holds(200) || b.holds(Long.MIN_VALUE),
        "below start, at end, and a cursor that wrapped");
  }
}
