package io.leaf.bench;

/**
 * Repeats a warm-up step until the rates it measures settle: a fixed warm-up of a few seconds left
 * the servers' JVMs half compiled on two cores, and the first rounds then measured the JIT (a third
 * to a half of the steady rate, on one side more than the other) instead of the servers.
 */
final class WarmUp {

  /** Two runs in a row within this fraction of each other count as settled. */
  static final double TOLERANCE = 0.10;

  static final int MIN_RUNS = 3;
  static final int MAX_RUNS = 8;

  /** One warm-up run; returns the rates it measured (calls or IDs per second). */
  interface Step {
    double[] run() throws Exception;
  }

  private WarmUp() {}

  /**
   * Runs {@code step} until every rate is within {@link #TOLERANCE} of the previous run's, at least
   * {@link #MIN_RUNS} and at most {@link #MAX_RUNS} times (once when {@code quick}).
   *
   * @return how many runs it took
   */
  static int untilSettled(boolean quick, String what, Step step) throws Exception {
    double[] last = null;
    int runs = 0;
    while (runs < (quick ? 1 : MAX_RUNS)) {
      double[] rates = step.run();
      runs++;
      if (runs >= MIN_RUNS && last != null && settled(last, rates)) {
        break;
      }
      last = rates;
    }
    Progress.say("%s warmed up in %d runs", what, runs);
    return runs;
  }

  static boolean settled(double[] before, double[] now) {
    for (int i = 0; i < now.length; i++) {
      if (Math.abs(now[i] - before[i]) > TOLERANCE * Math.max(before[i], 1)) {
        return false;
      }
    }
    return true;
  }
}
