package io.leaf.server.engine;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PrefetchPolicyTest {

  private static final PrefetchPolicy POLICY = new PrefetchPolicy(2.0, 4);

  /** 20 IDs per millisecond. */
  private static final double RATE = 20.0 / 1_000_000;

  private static final long FIVE_MS = 5_000_000;

  @Test
  void shouldLoad_idsLastLessThanSafetyTimesLatency_true() {
    // 20 IDs/ms × 5 ms × 2 = 200 IDs wanted ahead.
    assertTrue(POLICY.shouldLoad(150, 0, 0, false, RATE, FIVE_MS), "150 left < 200 wanted");
    assertTrue(
        POLICY.shouldLoad(100, 90, 1, false, RATE, FIVE_MS), "190 left or coming < 200 wanted");
  }

  @Test
  void shouldLoad_idsLastLongEnough_false() {
    assertFalse(POLICY.shouldLoad(201, 0, 0, false, RATE, FIVE_MS), "201 left > 200 wanted");
    assertFalse(
        POLICY.shouldLoad(100, 110, 1, false, RATE, FIVE_MS),
        "a load in flight counts towards what is ahead");
  }

  @Test
  void shouldLoad_lookaheadFull_falseWhateverTheRate() {
    assertFalse(
        POLICY.shouldLoad(0, 0, 4, true, 1.0, FIVE_MS),
        "4 segments queued or loading is the bound, even past the preload point");
  }

  @Test
  void shouldLoad_nothingAheadPastPreloadPoint_trueWithoutMeasurements() {
    assertTrue(
        POLICY.shouldLoad(1_000_000, 0, 0, true, 0, 0),
        "Leaf's 10% rule holds before any rate or latency is known");
    assertFalse(
        POLICY.shouldLoad(1_000_000, 0, 1, true, 0, 0), "but only for the first segment ahead");
  }

  @Test
  void shouldLoad_noRateYet_falseBeforePreloadPoint() {
    assertFalse(POLICY.shouldLoad(10, 0, 0, false, 0, FIVE_MS), "unknown rate: wait for 10%");
    assertFalse(POLICY.shouldLoad(10, 0, 0, false, RATE, 0), "unknown latency: wait for 10%");
  }

  @Test
  void new_badValues_rejected() {
    assertThrows(
        IllegalArgumentException.class,
        () -> new PrefetchPolicy(0.5, 4),
        "a safety below 1 would plan to run dry");
    assertThrows(
        IllegalArgumentException.class,
        () -> new PrefetchPolicy(2, 0),
        "a lookahead of 0 would never load ahead");
  }
}
