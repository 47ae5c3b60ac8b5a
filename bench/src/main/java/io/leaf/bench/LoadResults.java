package io.leaf.bench;

import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/** Picks figures out of the result lines a child JVM printed: one map of key to value per line. */
final class LoadResults {

  private LoadResults() {}

  static List<Map<String, String>> select(
      List<Map<String, String>> results, String measure, Predicate<Map<String, String>> filter) {
    List<Map<String, String>> selected =
        results.stream().filter(r -> measure.equals(r.get("measure"))).filter(filter).toList();
    if (selected.isEmpty()) {
      throw new IllegalStateException("no " + measure + " results");
    }
    return selected;
  }

  static List<Double> values(List<Map<String, String>> rounds, String key) {
    return rounds.stream().map(r -> num(r, key)).toList();
  }

  static double num(Map<String, String> result, String key) {
    String value = result.get(key);
    if (value == null) {
      throw new IllegalStateException("result has no " + key + ": " + result);
    }
    return Double.parseDouble(value);
  }
}
