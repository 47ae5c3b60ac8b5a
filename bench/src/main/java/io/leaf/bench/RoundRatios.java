package io.leaf.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Figures measured round by round, compared within each round and against a goal. */
final class RoundRatios {

  private RoundRatios() {}

  /** {@code list} rotated left by {@code round - 1}: each call takes each place in turn. */
  static <T> List<T> rotated(List<T> list, int round) {
    int shift = Math.floorMod(round - 1, list.size());
    List<T> out = new ArrayList<>(list.subList(shift, list.size()));
    out.addAll(list.subList(0, shift));
    return out;
  }

  /** {@code a[i] ÷ b[i]} for each round (a side that completed nothing counts as 1 call/s). */
  static List<Double> perRound(List<Double> a, List<Double> b) {
    List<Double> out = new ArrayList<>();
    for (int i = 0; i < a.size(); i++) {
      out.add(a.get(i) / Math.max(1, b.get(i)));
    }
    return out;
  }

  /**
   * The ratio cell: {@code "what = 0.93 (goal ≥ 0.9: met)"}; one more digit where two would round a
   * miss up to the goal (0.798 shows as 0.798, not 0.80).
   */
  static String verdict(String what, double ratio, double goal) {
    String shown =
        ratio >= 10
            ? String.format(Locale.ROOT, "%,.0f", ratio)
            : String.format(Locale.ROOT, "%.2f", ratio);
    if (ratio < goal && Double.parseDouble(shown.replace(",", "")) >= goal) {
      shown = String.format(Locale.ROOT, ratio >= 10 ? "%,.1f" : "%.3f", ratio);
    }
    String goalShown =
        goal >= 10
            ? String.format(Locale.ROOT, "%,.0f", goal)
            : String.format(Locale.ROOT, "%s", goal);
    return what
        + " = "
        + shown
        + " (goal ≥ "
        + goalShown
        + ": "
        + (ratio >= goal ? "met" : "missed")
        + ")";
  }
}
