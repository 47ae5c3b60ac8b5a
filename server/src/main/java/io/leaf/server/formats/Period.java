package io.leaf.server.formats;

import java.time.Instant;
import java.time.ZoneId;
import java.util.Objects;
import java.util.Optional;

/**
 * One period of a {@link Reset} in a time zone: the instants {@code [start, end)} whose numbers
 * come from the database row keyed by {@link #key()}. Immutable.
 *
 * <p>For {@link Reset#NEVER} the period is all time: key {@code ""}, start {@link Instant#MIN}, end
 * {@link Instant#MAX}, and no next period.
 *
 * @param key {@code ""}, yyyy, yyyyMM or yyyyMMdd; part of the row's key and of the opaque tweak
 * @param start the first instant of the period
 * @param end the first instant after it: the next boundary
 */
public record Period(Reset reset, ZoneId zone, String key, Instant start, Instant end) {

  public Period {
    Objects.requireNonNull(reset, "reset");
    Objects.requireNonNull(zone, "zone");
    Objects.requireNonNull(key, "key");
    if (!start.isBefore(end)) {
      throw new IllegalArgumentException(
          "period " + key + " must start before it ends, got " + start + " .. " + end);
    }
  }

  /** Whether {@code at} falls in this period ({@code start <= at < end}). */
  public boolean contains(Instant at) {
    return !at.isBefore(start) && at.isBefore(end);
  }

  /**
   * The period that begins at {@link #end()}, whose row the engine may create before the boundary;
   * empty for a format that never resets.
   */
  public Optional<Period> next() {
    return reset == Reset.NEVER ? Optional.empty() : Optional.of(reset.next(this));
  }
}
