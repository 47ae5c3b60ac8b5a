package io.leaf.client;

import java.time.ZoneId;
import java.util.Objects;

/**
 * How a tag's numbers are written: a pattern such as {@code ORD-{yyyyMMdd}-{seq:6}{check:luhn}},
 * when its sequence starts again at 1, and the time zone its dates and periods are read in; the
 * server checks the pattern and answers INVALID_ARGUMENT for a bad one.
 *
 * @param pattern {@code {yyyyMMdd}}-style date fields, {@code {seq:W}} the sequence in exactly W
 *     digits (1-18), {@code {seq:W:opaque}} the same encrypted (W at least 6), {@code
 *     {seq:W:base36}} or {@code {seq:W:base62}} in W characters of that base, {@code {check:luhn}}
 *     a check digit; anything else literal, {@code {{} and {@code }}} braces
 * @param reset when the sequence starts again; the pattern must show the whole period
 * @param timeZone the zone of the dates and periods (UTC with {@link #of(String)})
 */
public record IdFormat(String pattern, Reset reset, ZoneId timeZone) {

  /** When a formatted tag's sequence starts again at 1. */
  public enum Reset {
    NEVER,
    DAILY,
    MONTHLY,
    YEARLY
  }

  public IdFormat {
    Objects.requireNonNull(pattern, "pattern");
    Objects.requireNonNull(reset, "reset");
    Objects.requireNonNull(timeZone, "timeZone");
  }

  /** {@code pattern} never reset, dates in UTC. */
  public static IdFormat of(String pattern) {
    return new IdFormat(pattern, Reset.NEVER, ZoneId.of("UTC"));
  }

  /** The same format with another reset. */
  public IdFormat withReset(Reset reset) {
    return new IdFormat(pattern, reset, timeZone);
  }

  /** The same format with dates and periods in {@code timeZone} (an IANA name on the wire). */
  public IdFormat withTimeZone(ZoneId timeZone) {
    return new IdFormat(pattern, reset, timeZone);
  }

  /** The message sent to the server. */
  io.leaf.v1.IdFormat toProto() {
    return io.leaf.v1.IdFormat.newBuilder()
        .setPattern(pattern)
        .setReset(io.leaf.v1.Reset.valueOf(reset.name()))
        .setTimeZone(timeZone.getId())
        .build();
  }
}
