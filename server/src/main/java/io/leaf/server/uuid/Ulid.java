package io.leaf.server.uuid;

import java.util.UUID;

/**
 * A UUID's 128 bits as a ULID: 26 characters of Crockford base32, most significant first (the first
 * character holds the top 3 bits), upper case; parsed back case-insensitively.
 */
public final class Ulid {

  private static final char[] DIGITS = "0123456789ABCDEFGHJKMNPQRSTVWXYZ".toCharArray();
  private static final int LENGTH = 26;

  private Ulid() {}

  /** The ULID of {@code uuid}'s bits. */
  public static String encode(UUID uuid) {
    long hi = uuid.getMostSignificantBits();
    long lo = uuid.getLeastSignificantBits();
    char[] out = new char[LENGTH];
    for (int i = LENGTH - 1; i >= 0; i--) {
      out[i] = DIGITS[(int) (lo & 31)];
      lo = (lo >>> 5) | (hi << 59);
      hi >>>= 5;
    }
    return new String(out);
  }

  /**
   * The bits of {@code ulid}.
   *
   * @throws IllegalArgumentException not 26 Crockford base32 characters, or above 128 bits
   */
  public static UUID decode(String ulid) {
    if (ulid.length() != LENGTH) {
      throw new IllegalArgumentException("a ULID has 26 characters, got " + ulid.length());
    }
    long hi = 0;
    long lo = 0;
    for (int i = 0; i < LENGTH; i++) {
      int v = value(ulid.charAt(i));
      if (v < 0) {
        throw new IllegalArgumentException(
            "not a Crockford base32 character at " + i + ": '" + ulid.charAt(i) + "'");
      }
      if (i == 0 && v > 7) {
        throw new IllegalArgumentException(
            "a ULID starts with 0-7 (128 bits), got '" + ulid.charAt(0) + "'");
      }
      hi = (hi << 5) | (lo >>> 59);
      lo = (lo << 5) | v;
    }
    return new UUID(hi, lo);
  }

  private static int value(char c) {
    char u = Character.toUpperCase(c);
    for (int i = 0; i < DIGITS.length; i++) {
      if (DIGITS[i] == u) {
        return i;
      }
    }
    return -1;
  }
}
