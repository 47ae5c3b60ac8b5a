package io.leaf.bench;

import com.google.gson.GsonBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The results as one Markdown table, one row per measure with its exact configuration, and as JSON
 * ({@code [{measure, configuration, value, unit, ratio}]}) for programs comparing runs.
 */
final class ResultsTable {

  /**
   * One row of the table: the text shown in its four columns, and the numbers read from it for the
   * JSON results.
   *
   * @param measure what the row measures
   * @param configuration what it was measured against
   * @param result the measured figure as shown, e.g. "1,234 IDs/s"
   * @param ratio the comparison as shown, such as "NextId ÷ bare Check = 0.95"; "—" if none
   * @param figures the numbers read from {@code result} and {@code ratio}
   */
  record Row(String measure, String configuration, String result, String ratio, Figures figures) {

    Double value() {
      return figures.value();
    }

    String unit() {
      return figures.unit();
    }

    Double ratioValue() {
      return figures.ratioValue();
    }
  }

  /**
   * The numbers read from a row's result and ratio text; the table's JSON form carries these, the
   * markdown form the text.
   *
   * @param value the row's headline figure (the first number of its result), null if none
   * @param unit what follows that number in the result, e.g. "IDs/s" or "M ops/s"
   * @param ratioValue the number after the first "=" of the ratio (its headline), null if none
   */
  record Figures(Double value, String unit, Double ratioValue) {}

  private static final Pattern FIRST_NUMBER =
      Pattern.compile("(-?[0-9][0-9,]*(?:\\.[0-9]+)?)\\s*([^·(;]*)");
  private static final Pattern RATIO = Pattern.compile("=\\s*(-?[0-9][0-9,]*(?:\\.[0-9]+)?)");

  private final List<Row> rows = new ArrayList<>();

  void add(String measure, String configuration, String result, String ratio) {
    Matcher m = FIRST_NUMBER.matcher(result);
    Double value = null;
    String unit = "";
    if (m.find()) {
      value = Double.valueOf(m.group(1).replace(",", ""));
      unit = m.group(2).trim();
    }
    Matcher r = RATIO.matcher(ratio);
    Double ratioValue = r.find() ? Double.valueOf(r.group(1).replace(",", "")) : null;
    rows.add(new Row(measure, configuration, result, ratio, new Figures(value, unit, ratioValue)));
  }

  List<Row> rows() {
    return List.copyOf(rows);
  }

  String markdown() {
    StringBuilder out = new StringBuilder();
    out.append("| measure | configuration | result (median) | ratio |\n");
    out.append("|---|---|---|---|\n");
    for (Row r : rows) {
      out.append("| ")
          .append(cell(r.measure()))
          .append(" | ")
          .append(cell(r.configuration()))
          .append(" | ")
          .append(cell(r.result()))
          .append(" | ")
          .append(cell(r.ratio()))
          .append(" |\n");
    }
    return out.toString();
  }

  /** Every row as {@code {measure, configuration, value, unit, ratio}}; absent numbers are null. */
  String json() {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Row r : rows) {
      Map<String, Object> o = new LinkedHashMap<>();
      o.put("measure", r.measure());
      o.put("configuration", r.configuration());
      o.put("value", r.value());
      o.put("unit", r.unit().isEmpty() ? r.result() : r.unit());
      o.put("ratio", r.ratioValue());
      out.add(o);
    }
    return new GsonBuilder()
            .serializeNulls()
            .setPrettyPrinting()
            .disableHtmlEscaping()
            .create()
            .toJson(out)
        + "\n";
  }

  private static String cell(String text) {
    return text.replace("|", "\\|").replace("\n", " ");
  }

  static String fmt(double value) {
    return String.format(Locale.ROOT, "%,.0f", value);
  }
}
