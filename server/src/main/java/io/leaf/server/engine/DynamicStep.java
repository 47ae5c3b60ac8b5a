package io.leaf.server.engine;

import io.leaf.server.store.SegmentRange;
import io.leaf.server.store.SegmentStore;

/**
 * A tag's dynamic step (Leaf's rule, {@link StepPolicy}): the step of its last load, its table
 * step, when its last load started, and whether UpdateStep reset it.
 *
 * <p>Thread-safety: guarded by the tag's stripe lock; every call holds it.
 */
final class DynamicStep {

  private int loads;
  private int step;
  private int tableStep;
  private long lastLoadNanos;
  private boolean reset;

  /** Counts UpdateSteps, so a load that started before one does not undo it. */
  private int epoch;

  /** The step to pass to the store for the next load. */
  int forNextLoad(long nowNanos, StepPolicy policy) {
    // The first two loads, and the first after UpdateStep, take the row's own step.
    if (reset || loads < 2) {
      return SegmentStore.TABLE_STEP;
    }
    return policy.nextStep(step, tableStep, nowNanos - lastLoadNanos);
  }

  /** The step the engine will ask for next; the table step when not yet known. */
  int effective(long nowNanos, StepPolicy policy) {
    int s = forNextLoad(nowNanos, policy);
    return s == SegmentStore.TABLE_STEP ? tableStep : s;
  }

  /** The epoch a load starts in, passed back to {@link #onLoaded}. */
  int epoch() {
    return epoch;
  }

  long lastLoadNanos() {
    return lastLoadNanos;
  }

  /** A load started at {@code startedNanos} in {@code loadEpoch} brought {@code range}. */
  void onLoaded(SegmentRange range, long startedNanos, int loadEpoch) {
    if (loadEpoch != epoch) {
      // UpdateStep arrived while this load was in flight: keep the reset for the next load.
      return;
    }
    loads++;
    step = range.step();
    tableStep = range.tableStep();
    // Loads side by side may finish out of order: the latest start is the last load.
    if (loads == 1 || startedNanos - lastLoadNanos > 0) {
      lastLoadNanos = startedNanos;
    }
    reset = false;
  }

  /** UpdateStep: the very next load uses the row's new step. */
  void reset(int newStep) {
    step = newStep;
    tableStep = newStep;
    reset = true;
    epoch++;
  }
}
