package io.leaf.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Medians: the figure a noisy shared machine can repeat, unlike the mean or the best. */
final class Stats {

  private Stats() {}

  static double median(List<Double> values) {
    if (values.isEmpty()) {
      throw new IllegalArgumentException("median of no values");
    }
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int mid = sorted.size() / 2;
    return sorted.size() % 2 == 1 ? sorted.get(mid) : (sorted.get(mid - 1) + sorted.get(mid)) / 2;
  }
}
