package io.leaf.jackson;

/** The integers a JavaScript number holds exactly: {@code -(2^53 - 1)} to {@code 2^53 - 1}. */
final class SafeIntegers {

  /** JavaScript's {@code Number.MAX_SAFE_INTEGER}. */
  static final long MAX = (1L << 53) - 1;

  private SafeIntegers() {}

  /** Whether {@code value} survives a trip through a JavaScript number. */
  static boolean isSafe(long value) {
    return value >= -MAX && value <= MAX;
  }
}
