package io.leaf.server.snowflake;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The snowflake settings ({@code --worker-id-range}, {@code --worker-lease-ttl}, {@code
 * --snowflake-epoch}, {@code --snowflake-bits}); {@link #parse} refuses, naming the flag, any value
 * the server cannot run with.
 *
 * @param fromId the lowest worker ID this server may claim
 * @param toId the highest
 * @param maxClientLeases the most worker leases clients may hold through this server at once
 *     ({@code --max-client-leases})
 */
public record SnowflakeConfig(
    SnowflakeLayout layout, int fromId, int toId, Duration leaseTtl, int maxClientLeases) {

  /** Settings with the default bound on client-held leases. */
  public SnowflakeConfig(SnowflakeLayout layout, int fromId, int toId, Duration leaseTtl) {
    this(layout, fromId, toId, leaseTtl, ClientLeases.DEFAULT_MAX);
  }

  /** These settings with another {@code --max-client-leases}. */
  public SnowflakeConfig withMaxClientLeases(int max) {
    return new SnowflakeConfig(layout, fromId, toId, leaseTtl, max);
  }

  public static final String DEFAULT_RANGE = "0-1023";
  public static final String DEFAULT_TTL = "30s";
  public static final String DEFAULT_BITS = "41/10/12";

  /** The shortest TTL: renewals every third of it must still have time to reach the database. */
  public static final Duration MIN_TTL = Duration.ofSeconds(1);

  /** {@code from-to} in plain digits: no sign, which {@link Integer#parseInt} would take. */
  private static final Pattern RANGE = Pattern.compile("(\\d{1,9})\\s*-\\s*(\\d{1,9})");

  private static final Pattern BITS = Pattern.compile("\\d{1,2}/\\d{1,2}/\\d{1,2}");

  /**
   * @param epoch Unix epoch milliseconds or an ISO-8601 instant ({@code 2010-11-04T01:42:54.657Z})
   * @param bits {@code timestamp/worker/sequence}, adding up to 63
   * @param range {@code from-to}, inclusive, within the worker ID bits
   * @throws IllegalArgumentException one line naming the flag and the value
   */
  public static SnowflakeConfig parse(String range, Duration ttl, String epoch, String bits) {
    if (ttl.compareTo(MIN_TTL) < 0) {
      throw new IllegalArgumentException("--worker-lease-ttl must be at least 1s, got " + ttl);
    }
    long epochMs;
    try {
      epochMs =
          epoch.trim().matches("\\d+")
              ? Long.parseLong(epoch.trim())
              : Instant.parse(epoch.trim()).toEpochMilli();
    } catch (NumberFormatException | DateTimeParseException e) {
      throw new IllegalArgumentException(
          "--snowflake-epoch must be Unix epoch milliseconds or an"
              + " ISO-8601 instant like 2010-11-04T01:42:54.657Z, got "
              + epoch);
    }
    String[] widths = bits.trim().split("/");
    SnowflakeLayout layout;
    try {
      if (!BITS.matcher(bits.trim()).matches()) {
        throw new NumberFormatException();
      }
      layout =
          new SnowflakeLayout(
              epochMs,
              Integer.parseInt(widths[0]),
              Integer.parseInt(widths[1]),
              Integer.parseInt(widths[2]));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "--snowflake-bits must be timestamp/worker/sequence bits"
              + " like "
              + DEFAULT_BITS
              + ", got "
              + bits);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "--snowflake-bits " + bits + " or --snowflake-epoch " + epoch + ": " + e.getMessage());
    }
    if (layout.maxTimestampMs() <= System.currentTimeMillis()
        || epochMs > System.currentTimeMillis()) {
      throw new IllegalArgumentException(
          "--snowflake-epoch "
              + epoch
              + " with --snowflake-bits "
              + bits
              + " does not hold today: the layout covers "
              + Instant.ofEpochMilli(epochMs)
              + " to "
              + Instant.ofEpochMilli(layout.maxTimestampMs()));
    }
    Matcher ends = RANGE.matcher(range.trim());
    int from;
    int to;
    try {
      if (!ends.matches()) {
        throw new NumberFormatException();
      }
      from = Integer.parseInt(ends.group(1));
      to = Integer.parseInt(ends.group(2));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "--worker-id-range must be from-to like " + DEFAULT_RANGE + ", got " + range);
    }
    if (from < 0 || to < from || to > layout.maxWorkerId()) {
      throw new IllegalArgumentException(
          "--worker-id-range must lie within 0-"
              + layout.maxWorkerId()
              + " ("
              + layout.workerIdBits()
              + " worker ID bits) with from <= to,"
              + " got "
              + range);
    }
    return new SnowflakeConfig(layout, from, to, ttl);
  }

  @Override
  public String toString() {
    return "worker-id-range="
        + fromId
        + "-"
        + toId
        + " worker-lease-ttl="
        + leaseTtl
        + " snowflake-epoch="
        + layout.epochMs()
        + " snowflake-bits="
        + layout.timestampBits()
        + "/"
        + layout.workerIdBits()
        + "/"
        + layout.sequenceBits();
  }
}
