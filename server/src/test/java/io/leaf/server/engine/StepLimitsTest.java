package io.leaf.server.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.store.SegmentStore;
import org.junit.jupiter.api.Test;

/** A width-bounded row's step limit: cut, untouched, bounded, and set again after eviction. */
class StepLimitsTest {

  @Test
  void aGrownStepIsCutToTheTagsLimit_otherTagsAndTheTableStepAreNot() {
    StepLimits limits = new StepLimits();
    limits.set("ord#20261126", 1_000);

    assertTrue(limits.has("ord#20261126"));
    assertEquals(1_000, limits.cap("ord#20261126", 50_000));
    assertEquals(200, limits.cap("ord#20261126", 200));
    assertEquals(SegmentStore.TABLE_STEP, limits.cap("ord#20261126", SegmentStore.TABLE_STEP));
    assertFalse(limits.has("other"));
    assertEquals(50_000, limits.cap("other", 50_000));
  }

  @Test
  void aLimitBelowOneIsRefused() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new StepLimits().set("t", 0));
    assertTrue(e.getMessage().contains("got 0"), e.getMessage());
  }

  @Test
  void boundedToTheMostRecentTags_aForgottenLimitHoldsAgainOnceSetAgain() {
    StepLimits limits = new StepLimits();
    limits.set("first", 10);
    for (int i = 0; i < StepLimits.CAPACITY + 1_000; i++) {
      limits.set("t" + i, 10);
    }
    assertFalse(limits.has("first"));
    assertEquals(5_000, limits.cap("first", 5_000));

    limits.set("first", 10);
    assertEquals(10, limits.cap("first", 5_000));
  }
}
