package io.leaf.server.formats;

import io.leaf.server.formats.IdPattern.DateUnit;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;

/**
 * A tag's format, validated: a pattern, a reset and the time zone of its dates and periods, such
 * that no two values of the format can be equal. Immutable.
 *
 * <p>A reset needs the pattern to show its whole period in full: YEARLY needs {@code yyyy}, MONTHLY
 * {@code yyyy} and {@code MM}, DAILY {@code yyyy}, {@code MM} and {@code dd}. Date fields finer
 * than the reset are fine (a MONTHLY sequence may show the day).
 *
 * <p>{@code yy} never counts as showing the year: a value showing {@code 26} would repeat in 2126,
 * and a value's period (the row its number came from, and the tweak of an opaque number) could not
 * be read back from it without guessing the century. Since a pattern shows the year once, {@code
 * yy} goes with a NEVER reset, where the date is decoration and the sequence alone keeps values
 * unique.
 */
public record FormatSpec(IdPattern pattern, Reset reset, ZoneId zone) {

  /**
   * @throws InvalidFormatException the pattern does not show the whole period of the reset
   */
  public FormatSpec {
    Objects.requireNonNull(pattern, "pattern");
    Objects.requireNonNull(reset, "reset");
    Objects.requireNonNull(zone, "zone");
    requireShown(pattern, reset, DateUnit.YEAR, reset != Reset.NEVER);
    requireShown(pattern, reset, DateUnit.MONTH, reset == Reset.MONTHLY || reset == Reset.DAILY);
    requireShown(pattern, reset, DateUnit.DAY, reset == Reset.DAILY);
  }

  /**
   * Parses and validates a format as the API carries it.
   *
   * @param timeZone an IANA name such as {@code Europe/Berlin}, or a fixed offset; empty or null
   *     means UTC
   * @throws InvalidFormatException the pattern, the reset or the time zone is refused
   */
  public static FormatSpec of(String pattern, Reset reset, String timeZone) {
    IdPattern parsed = IdPattern.parse(pattern);
    ZoneId zone;
    if (timeZone == null || timeZone.isEmpty()) {
      zone = ZoneOffset.UTC;
    } else {
      try {
        zone = ZoneId.of(timeZone);
      } catch (DateTimeException e) {
        throw new InvalidFormatException(
            pattern,
            -1,
            "time_zone "
                + Text.quote(timeZone)
                + " is not a known time zone (an IANA name such as Europe/Berlin, or UTC)");
      }
    }
    return new FormatSpec(parsed, reset, zone);
  }

  /** Whether the sequence field is opaque, so the format needs the server's key. */
  public boolean opaque() {
    return pattern.sequence().opaque();
  }

  private static void requireShown(IdPattern pattern, Reset reset, DateUnit unit, boolean needed) {
    if (!needed || pattern.shows(unit)) {
      return;
    }
    String why =
        unit == DateUnit.YEAR && pattern.shows(DateUnit.YEAR_OF_CENTURY)
            ? " ({yy} repeats every 100 years, and the numbers would repeat with it)"
            : "";
    throw new InvalidFormatException(
        pattern.source(),
        -1,
        "a "
            + reset
            + " reset needs the"
            + " pattern to show {"
            + unit.letters()
            + "}"
            + why
            + ", else its numbers would repeat"
            + " in the next period");
  }
}
