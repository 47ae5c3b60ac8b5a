package io.leaf.server.security;

/**
 * A token's rate limit in IDs: {@code perSecond} IDs a second on average, at most {@code burst} at
 * once (after a quiet spell). Written {@code 5000/s} (the burst is then one second's worth) or
 * {@code 5000/s:20000}.
 *
 * @param perSecond 1 to {@value #MAX}
 * @param burst 1 to {@value #MAX}; no single call may take more IDs than this
 */
public record IdRate(long perSecond, long burst) {

  /** The largest rate and burst: what keeps the bucket's arithmetic within 64 bits. */
  public static final long MAX = 1_000_000_000L;

  public IdRate {
    if (perSecond < 1 || perSecond > MAX || burst < 1 || burst > MAX) {
      throw new IllegalArgumentException("RATE and its burst must be between 1 and " + MAX);
    }
  }

  /**
   * The rate {@code text} writes.
   *
   * @throws IllegalArgumentException one line saying what is wrong with it, never repeating it
   */
  public static IdRate parse(String text) {
    int slash = text.indexOf("/s");
    String after = slash < 0 ? null : text.substring(slash + 2);
    if (slash <= 0 || !(after.isEmpty() || after.startsWith(":") && after.length() > 1)) {
      throw new IllegalArgumentException(
          "RATE must be like 5000/s or 5000/s:20000 (IDs per" + " second, then the burst)");
    }
    long perSecond = number(text.substring(0, slash));
    long burst = after.isEmpty() ? perSecond : number(after.substring(1));
    return new IdRate(perSecond, burst);
  }

  private static long number(String digits) {
    if (digits.length() > 10 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
      throw new IllegalArgumentException(
          "RATE must be like 5000/s or 5000/s:20000 with plain" + " digits between 1 and " + MAX);
    }
    return Long.parseLong(digits);
  }

  /** The rate as the token file writes it, burst included. */
  @Override
  public String toString() {
    return perSecond + "/s:" + burst;
  }
}
