package io.leaf.server.engine;

import java.time.Duration;

/**
 * The pause between loads of a tag whose loads fail: {@code min} after the first failure, doubling
 * per failure in a row up to {@code max}. Requires {@code 0 <= min <= max}.
 *
 * @param min pause after the first failed load of a tag
 * @param max longest pause between loads of a tag whose database is failing
 */
public record Backoff(Duration min, Duration max) {

  public Backoff {
    if (min.isNegative() || max.compareTo(min) < 0) {
      throw new IllegalArgumentException(
          "backoff must satisfy 0 <= min <= max: " + min + ", " + max);
    }
  }
}
