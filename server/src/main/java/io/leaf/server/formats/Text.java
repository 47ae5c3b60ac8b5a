package io.leaf.server.formats;

/** Quotes caller-supplied text for messages: control characters escaped, at most 64 characters. */
final class Text {

  private static final int MAX_SHOWN = 64;

  private Text() {}

  /** {@code s} in double quotes, control characters and quotes escaped, cut at 64 characters. */
  static String quote(String s) {
    if (s == null) {
      return "null";
    }
    StringBuilder b = new StringBuilder(Math.min(s.length(), MAX_SHOWN) + 8).append('"');
    int shown = Math.min(s.length(), MAX_SHOWN);
    for (int i = 0; i < shown; i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (Character.isISOControl(c)) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    b.append('"');
    if (s.length() > MAX_SHOWN) {
      b.append("… (").append(s.length()).append(" characters)");
    }
    return b.toString();
  }
}
