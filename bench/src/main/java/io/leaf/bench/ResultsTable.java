package io.leaf.bench;

import java.util.ArrayList;
import java.util.List;

/** The results as one Markdown table, one row per measure with its exact configuration. */
final class ResultsTable {

  record Row(String measure, String configuration, String result, String ratio) {}

  private final List<Row> rows = new ArrayList<>();

  void add(String measure, String configuration, String result, String ratio) {
    rows.add(new Row(measure, configuration, result, ratio));
  }

  List<Row> rows() {
    return List.copyOf(rows);
  }

  String markdown() {
    StringBuilder out = new StringBuilder();
    out.append("| measure | configuration | result (median) | ratio |\n");
    out.append("|---|---|---|---|\n");
    for (Row r : rows) {
      out.append("| ").append(cell(r.measure())).append(" | ").append(cell(r.configuration()))
          .append(" | ").append(cell(r.result())).append(" | ").append(cell(r.ratio()))
          .append(" |\n");
    }
    return out.toString();
  }

  private static String cell(String text) {
    return text.replace("|", "\\|").replace("\n", " ");
  }
}
