package io.leaf.server.engine;

import java.time.Duration;

/**
 * Leaf's dynamic step: a segment should last about 15 minutes. Pure: the caller passes the time the
 * previous segment lasted.
 *
 * <p>Lasted under 15 minutes: double (not past {@code maxStep}); 15 to 30 minutes: keep; 30 minutes
 * or more: halve (not below the step stored in the database).
 */
public record StepPolicy(int maxStep) {

  public static final int DEFAULT_MAX_STEP = 1_000_000;
  static final long FAST_NANOS = Duration.ofMinutes(15).toNanos();
  static final long SLOW_NANOS = Duration.ofMinutes(30).toNanos();

  public StepPolicy {
    if (maxStep < 1) {
      throw new IllegalArgumentException("maxStep must be at least 1: " + maxStep);
    }
  }

  /**
   * @param current the step of the previous load
   * @param tableStep the step stored in the database: the floor when halving
   * @param lastedNanos how long the previous segment lasted
   */
  public int nextStep(int current, int tableStep, long lastedNanos) {
    if (lastedNanos < FAST_NANOS) {
      if (current >= maxStep) {
        return current;
      }
      return (int) Math.min(2L * current, maxStep);
    }
    if (lastedNanos < SLOW_NANOS) {
      return current;
    }
    return Math.max(current / 2, Math.max(tableStep, 1));
  }
}
