package io.leaf.server.formats;

/**
 * The digits a {@code {seq}} field writes in its radix, always exactly W of them, zero-padded, so
 * that values of one width sort in ASCII order as their sequences do. Pure functions; thread-safe.
 *
 * <p>The radixes: decimal ({@code {seq:W}}), base 36 ({@code {seq:W:base36}}, {@code 0-9A-Z}) or
 * base 62 ({@code {seq:W:base62}}, {@code 0-9A-Za-z}).
 */
final class SequenceDigits {

  static final int DECIMAL = 10;
  static final int BASE36 = 36;
  static final int BASE62 = 62;
  private static final String ALPHABET =
      "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

  private SequenceDigits() {}

  /** The widest field of {@code radix} whose values all fit a {@code long}. */
  static int maxWidth(int radix) {
    return switch (radix) {
      case DECIMAL -> IdPattern.MAX_WIDTH;
      case BASE36 -> 12;
      case BASE62 -> 10;
      default -> throw new IllegalArgumentException("radix must be 10, 36 or 62, got " + radix);
    };
  }

  /** {@code radix^width - 1}: the largest sequence a field shows. */
  static long maxSequence(int radix, int width) {
    if (width < 1 || width > maxWidth(radix)) {
      throw new IllegalArgumentException(
          "width must be between 1 and "
              + maxWidth(radix)
              + " for radix "
              + radix
              + ", got "
              + width);
    }
    long p = 1;
    for (int i = 0; i < width; i++) {
      p *= radix;
    }
    return p - 1;
  }

  /** Appends {@code v} (0 to {@link #maxSequence}) as exactly {@code width} digits. */
  static void append(StringBuilder b, long v, int width, int radix) {
    if (radix == DECIMAL) {
      IdPattern.appendPadded(b, v, width);
      return;
    }
    int end = b.length() + width;
    for (int i = 0; i < width; i++) {
      b.append('0');
    }
    for (int i = end - 1; v > 0 && i >= end - width; i--) {
      b.setCharAt(i, ALPHABET.charAt((int) (v % radix)));
      v /= radix;
    }
  }

  /** The value of digit {@code c} in {@code radix}, -1 when it is none. */
  static int valueOf(char c, int radix) {
    int v;
    if (c >= '0' && c <= '9') {
      v = c - '0';
    } else if (c >= 'A' && c <= 'Z') {
      v = c - 'A' + 10;
    } else if (c >= 'a' && c <= 'z') {
      v = c - 'a' + 36;
    } else {
      return -1;
    }
    return v < radix ? v : -1;
  }

  /** What a field of {@code radix} is called in messages. */
  static String name(int radix) {
    return radix == DECIMAL ? "digits" : "base-" + radix + " digits";
  }
}
