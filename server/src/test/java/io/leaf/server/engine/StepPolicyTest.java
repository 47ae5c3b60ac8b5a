package io.leaf.server.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Leaf's dynamic-step rule on its boundaries: 15 and 30 minutes, the cap and the floor. */
class StepPolicyTest {

  private static final StepPolicy POLICY = new StepPolicy(1_000);

  private static long minutes(long m) {
    return Duration.ofMinutes(m).toNanos();
  }

  @Test
  void nextStep_lastedUnderFifteenMinutes_doubles() {
    assertEquals(200, POLICY.nextStep(100, 100, 0), "an instant segment doubles");
    assertEquals(200, POLICY.nextStep(100, 100, minutes(15) - 1), "just under 15 minutes doubles");
  }

  @Test
  void nextStep_lastedFifteenToThirtyMinutes_keeps() {
    assertEquals(300, POLICY.nextStep(300, 100, minutes(15)), "exactly 15 minutes keeps");
    assertEquals(300, POLICY.nextStep(300, 100, minutes(30) - 1), "just under 30 minutes keeps");
  }

  @Test
  void nextStep_lastedThirtyMinutesOrMore_halves() {
    assertEquals(200, POLICY.nextStep(400, 100, minutes(30)), "exactly 30 minutes halves");
    assertEquals(200, POLICY.nextStep(400, 100, minutes(600)), "ten hours halves once");
  }

  @Test
  void nextStep_doublingPastMax_capsAtMax() {
    assertEquals(1_000, POLICY.nextStep(600, 100, 0), "600 doubles to the cap, not 1200");
    assertEquals(1_000, POLICY.nextStep(1_000, 100, 0), "at the cap it stays");
  }

  @Test
  void nextStep_tableStepAboveMax_keptWhenFast() {
    assertEquals(5_000, POLICY.nextStep(5_000, 5_000, 0), "a table step above the cap is not cut");
  }

  @Test
  void nextStep_halvingBelowTableStep_floorsAtTableStep() {
    assertEquals(100, POLICY.nextStep(150, 100, minutes(45)), "75 would be below the table step");
    assertEquals(100, POLICY.nextStep(100, 100, minutes(45)), "the table step is never halved");
  }

  @Test
  void nextStep_defaultCap_isOneMillion() {
    StepPolicy defaults = new StepPolicy(StepPolicy.DEFAULT_MAX_STEP);
    assertEquals(1_000_000, defaults.nextStep(800_000, 100, 0), "default cap");
    assertEquals(1_000_000, EngineConfig.DEFAULTS.maxStep(), "the engine's default cap");
  }

  @Test
  void nextStep_largeStepNearIntMax_doesNotOverflow() {
    StepPolicy big = new StepPolicy(1_000_000_000);
    int next = big.nextStep(900_000_000, 1, 0);
    assertEquals(1_000_000_000, next, "2 * 900000000 overflows an int; the cap applies");
    assertTrue(next > 0, "positive: " + next);
  }

  @Test
  void constructor_maxStepBelowOne_rejectedNamingValue() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new StepPolicy(0));
    assertTrue(e.getMessage().contains("maxStep") && e.getMessage().contains("0"), e.getMessage());
  }
}
