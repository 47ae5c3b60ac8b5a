package io.leaf.server.http;

/** The JSON string escaping the monitor needs (no JSON library in the server). */
final class Json {

  private Json() {}

  /** {@code s} as a JSON string literal, quotes included; {@code null} as {@code null}. */
  static String string(String s) {
    if (s == null) {
      return "null";
    }
    StringBuilder out = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          // Also < > & and the line separators, so the text is safe inside a <script> too.
          if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == '\u2028' || c == '\u2029') {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}
