package io.leaf.bench;

import java.time.Duration;
import java.util.Locale;

/**
 * How the result table writes counts and durations: {@code 1,000,000}, {@code 2 s}, {@code 250 ms}.
 */
final class Cells {

  private Cells() {}

  static String fmt(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  static String ms(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }
}
