package io.leaf.server.http;

import java.util.Locale;

/**
 * HTML escaping: text placed in an element or a quoted attribute stays text, and shows what it
 * holds: a format character (a bidi control such as U+202E, a zero-width one) is shown as its code,
 * {@code [U+202E]}, instead of reordering or hiding what follows.
 */
final class Html {

  private Html() {}

  static String escape(String s) {
    if (s == null) {
      return "";
    }
    StringBuilder out = new StringBuilder(s.length() + 16);
    s.codePoints()
        .forEach(
            c -> {
              switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default ->
                    out.append(
                        Character.getType(c) == Character.FORMAT ? code(c) : Character.toString(c));
              }
            });
    return out.toString();
  }

  /** {@code [U+202E]}: the page's script shows a format character the same way. */
  static String code(int codePoint) {
    return String.format(Locale.ROOT, "[U+%04X]", codePoint);
  }
}
