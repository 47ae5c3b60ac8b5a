package io.leaf.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One measurement passed from a child JVM to the parent on standard output: {@code RESULT key=value
 * key=value ...}; every other line is progress for the reader.
 */
final class ResultLine {

  static final String PREFIX = "RESULT ";

  private ResultLine() {}

  /** Alternating keys and values; values must not contain spaces. */
  static String format(Object... keyValues) {
    StringBuilder out = new StringBuilder(PREFIX);
    for (int i = 0; i < keyValues.length; i += 2) {
      if (i > 0) {
        out.append(' ');
      }
      out.append(keyValues[i]).append('=').append(keyValues[i + 1]);
    }
    return out.toString();
  }

  static boolean isResult(String line) {
    return line.startsWith(PREFIX);
  }

  static Map<String, String> parse(String line) {
    Map<String, String> values = new LinkedHashMap<>();
    for (String pair : line.substring(PREFIX.length()).trim().split(" ")) {
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("not key=value in result line: " + line);
      }
      values.put(pair.substring(0, eq), pair.substring(eq + 1));
    }
    return values;
  }
}
