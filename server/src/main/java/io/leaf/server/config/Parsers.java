package io.leaf.server.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The parsers of the flag table; each refusal is one line naming the flag and the text given. */
final class Parsers {

  /** Plain digits: no sign, which {@link Integer#parseInt} would take. */
  private static final Pattern DIGITS = Pattern.compile("\\d{1,10}");

  private static final Pattern BYTES = Pattern.compile("(\\d{1,13})([kmg]?)");
  private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d)");

  /** The least a byte size flag takes: a thousand IDs' chunks in flight need 20 KB. */
  static final long MIN_BYTES = 1L << 20;

  /** The most: far beyond any heap, small enough that no product overflows. */
  static final long MAX_BYTES = 1L << 40;

  /** Long enough for any timeout or TTL, short enough that every duration fits in nanoseconds. */
  static final Duration MAX_DURATION = Duration.ofDays(365);

  private Parsers() {}

  static Flag.Parser<String> text() {
    return (flag, raw) -> raw;
  }

  /** An integer in plain digits from {@code min} to {@code max}. */
  static Flag.Parser<Integer> integer(int min, int max) {
    return (flag, raw) -> {
      try {
        if (!DIGITS.matcher(raw.trim()).matches()) {
          throw new NumberFormatException();
        }
        int v = Integer.parseInt(raw.trim());
        if (v < min || v > max) {
          throw new NumberFormatException();
        }
        return v;
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "--" + flag + " must be an integer between " + min + " and " + max + ", got " + raw);
      }
    };
  }

  /** {@code true} or {@code false}, in any case; anything else stops the server. */
  static Flag.Parser<Boolean> bool() {
    return (flag, raw) ->
        switch (raw.trim().toLowerCase(Locale.ROOT)) {
          case "true" -> true;
          case "false" -> false;
          default ->
              throw new IllegalArgumentException(
                  "--" + flag + " must be true or false, got " + raw);
        };
  }

  /** A file path; null when empty. */
  static Flag.Parser<Path> path() {
    return (flag, raw) -> raw.trim().isEmpty() ? null : Path.of(raw.trim());
  }

  /** {@code on} or {@code off} (any case). */
  static Flag.Parser<Boolean> onOff() {
    return (flag, raw) ->
        switch (raw.trim().toLowerCase(Locale.ROOT)) {
          case "on" -> true;
          case "off" -> false;
          default ->
              throw new IllegalArgumentException("--" + flag + " must be on or off, got " + raw);
        };
  }

  /** One of {@code values} in any case, upper-cased. */
  static Flag.Parser<String> oneOf(List<String> values) {
    return (flag, raw) -> {
      String v = raw.trim().toUpperCase(Locale.ROOT);
      if (!values.contains(v)) {
        throw new IllegalArgumentException(
            "--" + flag + " must be one of " + String.join(", ", values) + ", got " + raw);
      }
      return v;
    };
  }

  /**
   * {@code auto} (0), or a size in bytes from 1m to 1024g: {@code 67108864}, {@code 64m}, {@code
   * 2g}.
   */
  static Flag.Parser<Long> bytes() {
    return (flag, raw) -> {
      String v = raw.trim().toLowerCase(Locale.ROOT);
      if (v.equals("auto")) {
        return 0L;
      }
      Matcher m = BYTES.matcher(v);
      if (m.matches()) {
        int shift =
            switch (m.group(2)) {
              case "k" -> 10;
              case "m" -> 20;
              case "g" -> 30;
              default -> 0;
            };
        long n = Long.parseLong(m.group(1)); // at most 13 digits, so n << 30 cannot overflow
        if (n <= MAX_BYTES >> shift && n << shift >= MIN_BYTES) {
          return n << shift;
        }
      }
      throw new IllegalArgumentException(
          "--"
              + flag
              + " must be auto or a size from 1m to 1024g,"
              + " like 64m or 1g, got "
              + raw);
    };
  }

  /** {@code 500ms}, {@code 30s}, {@code 15m}, {@code 1h}, {@code 30d}; positive, at most a year. */
  static Flag.Parser<Duration> duration() {
    return (flag, raw) -> {
      Matcher m = DURATION.matcher(raw.trim());
      if (m.matches()) {
        Duration d;
        try {
          long n = Long.parseLong(m.group(1));
          d =
              switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
              };
        } catch (NumberFormatException | ArithmeticException e) {
          d = null;
        }
        if (d == null || d.compareTo(MAX_DURATION) > 0) {
          throw new IllegalArgumentException(
              "--" + flag + " must be at most " + MAX_DURATION.toHours() + "h, got " + raw);
        }
        if (!d.isZero()) {
          return d;
        }
      }
      throw new IllegalArgumentException(
          "--" + flag + " must be a positive duration like 500ms, 30s, 15m or 1h, got " + raw);
    };
  }

  /** {@code off} ({@link Duration#ZERO}) or a {@link #duration()}. */
  static Flag.Parser<Duration> durationOrOff() {
    Flag.Parser<Duration> duration = duration();
    return (flag, raw) -> {
      if (raw.trim().equalsIgnoreCase("off")) {
        return Duration.ZERO;
      }
      try {
        return duration.parse(flag, raw);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            e.getMessage().replace("must be a positive", "must be off or a positive"));
      }
    };
  }

  /** {@code d} as {@link #duration()} reads it: whole seconds as {@code 10s}, else millis. */
  static String format(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
  }
}
