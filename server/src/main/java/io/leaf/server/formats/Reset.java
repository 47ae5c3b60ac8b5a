package io.leaf.server.formats;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;

/**
 * How often a formatted tag's sequence restarts at its first number; each period's numbers come
 * from a database row of their own, keyed by the tag and {@link Period#key()}, so a restart needs
 * no timer.
 *
 * <p>Periods are calendar days, months or years in the tag's time zone; {@link #periodOf(Instant,
 * ZoneId)} and {@link #periodOfKey(String, ZoneId)} are pure functions of their arguments (no clock
 * is read). The date shown in a value belongs to the instant that chose the period, so a DAILY
 * value always shows its row's day.
 */
public enum Reset {

  /** One period for all time, key {@code ""}. */
  NEVER(""),
  /** A period per day, key {@code yyyyMMdd} (e.g. {@code 20261126}). */
  DAILY("uuuuMMdd"),
  /** A period per month, key {@code yyyyMM} (e.g. {@code 202611}). */
  MONTHLY("uuuuMM"),
  /** A period per year, key {@code yyyy} (e.g. {@code 2026}). */
  YEARLY("uuuu");

  private final String keyPattern;
  private final DateTimeFormatter keyFormat;

  Reset(String keyPattern) {
    this.keyPattern = keyPattern;
    this.keyFormat =
        keyPattern.isEmpty()
            ? null
            : DateTimeFormatter.ofPattern(keyPattern).withResolverStyle(ResolverStyle.STRICT);
  }

  /**
   * The period holding {@code at} in {@code zone}: its key and its start and end instants, which
   * follow the zone's rules (a day across a DST change lasts 23 or 25 hours; a day whose midnight
   * falls in a gap starts at the gap's end).
   *
   * @throws DateTimeException {@code at} falls outside the years 0000-9999
   */
  public Period periodOf(Instant at, ZoneId zone) {
    if (this == NEVER) {
      return new Period(this, zone, "", Instant.MIN, Instant.MAX);
    }
    return periodStarting(firstDay(at.atZone(zone).toLocalDate()), zone);
  }

  /**
   * The period whose key is {@code key} in {@code zone}, the inverse of {@link Period#key()}.
   *
   * @throws IllegalArgumentException {@code key} is not a key of this reset
   */
  public Period periodOfKey(String key, ZoneId zone) {
    if (this == NEVER) {
      if (!key.isEmpty()) {
        throw new IllegalArgumentException(
            "a format that never resets has the period key \"\"," + " got " + Text.quote(key));
      }
      return periodOf(Instant.EPOCH, zone);
    }
    LocalDate first;
    try {
      if (key.length() != keyPattern.length() || !CheckCharacters.allDigits(key)) {
        throw new DateTimeParseException("not " + keyPattern.length() + " digits", key, 0);
      }
      String day = key + "0101".substring(key.length() - 4);
      first = LocalDate.parse(day, DAILY.keyFormat);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "period key of a "
              + this
              + " reset must be "
              + keyPattern.replace('u', 'y')
              + ", got "
              + Text.quote(key),
          e);
    }
    return periodStarting(first, zone);
  }

  /** The key of the period holding {@code date}: {@code ""}, yyyy, yyyyMM or yyyyMMdd. */
  public String keyOf(LocalDate date) {
    if (date.getYear() < 0 || date.getYear() > 9999) {
      throw new DateTimeException("year " + date.getYear() + " is outside 0000-9999");
    }
    return this == NEVER ? "" : keyFormat.format(date);
  }

  private LocalDate firstDay(LocalDate date) {
    switch (this) {
      case DAILY:
        return date;
      case MONTHLY:
        return date.withDayOfMonth(1);
      case YEARLY:
        return date.withDayOfYear(1);
      default:
        throw new IllegalStateException("NEVER has no first day");
    }
  }

  private LocalDate nextFirstDay(LocalDate first) {
    switch (this) {
      case DAILY:
        return first.plusDays(1);
      case MONTHLY:
        return first.plusMonths(1);
      case YEARLY:
        return first.plusYears(1);
      default:
        throw new IllegalStateException("NEVER has no next period");
    }
  }

  private Period periodStarting(LocalDate first, ZoneId zone) {
    String key = keyOf(first);
    // atStartOfDay(zone), not atTime(0, 0): where midnight falls in a DST gap the day starts at
    // the first instant that exists.
    Instant start = first.atStartOfDay(zone).toInstant();
    Instant end = nextFirstDay(first).atStartOfDay(zone).toInstant();
    return new Period(this, zone, key, start, end);
  }

  Period next(Period p) {
    if (this == NEVER) {
      throw new IllegalStateException("a format that never resets has no next period");
    }
    return periodStarting(
        nextFirstDay(firstDay(p.start().atZone(p.zone()).toLocalDate())), p.zone());
  }
}
