package io.leaf.server.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class SegmentTakeTest {

  @Test
  void stepToAdd_tableStep_rowsStep() {
    assertEquals(200, SegmentTake.stepToAdd("t", 1L, 200, SegmentStore.TABLE_STEP));
    assertEquals(50, SegmentTake.stepToAdd("t", 1L, 200, 50), "a dynamic step is added as asked");
  }

  @Test
  void stepToAdd_nullOrNonPositiveStep_invalidTagState() {
    assertThrows(
        InvalidTagStateException.class,
        () -> SegmentTake.stepToAdd("t", null, 200, SegmentStore.TABLE_STEP),
        "NULL max_id");
    assertThrows(
        InvalidTagStateException.class,
        () -> SegmentTake.stepToAdd("t", 1L, null, 50),
        "NULL step");
    assertThrows(
        InvalidTagStateException.class,
        () -> SegmentTake.stepToAdd("t", 1L, 0, SegmentStore.TABLE_STEP),
        "step 0");
  }
}
