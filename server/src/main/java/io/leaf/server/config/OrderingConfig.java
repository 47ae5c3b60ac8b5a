package io.leaf.server.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;

/**
 * Where other servers reach this one for the STRICT tags it owns ({@code --advertise-address}), how
 * long an owner lease lives ({@code --tag-lease-ttl}), and the bounds of what the feature keeps.
 *
 * @param advertiseAddress {@code HOST:PORT}
 * @param tagLeaseTtl an owner lease lives this long without renewal
 * @param sequenceMaxKeys NextSequence keys held in memory at once, over every tag
 * @param maxHeldStrictCalls calls on STRICT tags held until their owner can serve them; 0: none
 */
public record OrderingConfig(
    String advertiseAddress, Duration tagLeaseTtl, int sequenceMaxKeys, int maxHeldStrictCalls) {

  /** The default of {@code --sequence-max-keys}. */
  public static final int DEFAULT_SEQUENCE_MAX_KEYS = 1_000_000;

  /** The default of {@code --max-held-strict-calls}. */
  public static final int DEFAULT_MAX_HELD_STRICT_CALLS = 10_000;

  public OrderingConfig(String advertiseAddress, Duration tagLeaseTtl) {
    this(advertiseAddress, tagLeaseTtl, DEFAULT_SEQUENCE_MAX_KEYS, DEFAULT_MAX_HELD_STRICT_CALLS);
  }

  /** The shortest TTL accepted: renewals every sixth of it must fit a database round trip. */
  public static final Duration MIN_TTL = Duration.ofMillis(300);

  public OrderingConfig {
    if (maxHeldStrictCalls < 0) {
      throw new IllegalArgumentException(
          "--max-held-strict-calls must be at least 0, got " + maxHeldStrictCalls);
    }
    if (sequenceMaxKeys < 1) {
      throw new IllegalArgumentException(
          "--sequence-max-keys must be at least 1, got " + sequenceMaxKeys);
    }
    if (tagLeaseTtl.compareTo(MIN_TTL) < 0) {
      throw new IllegalArgumentException(
          "--tag-lease-ttl must be at least "
              + MIN_TTL.toMillis()
              + "ms, got "
              + tagLeaseTtl.toMillis()
              + "ms");
    }
    int colon = advertiseAddress.lastIndexOf(':');
    if (colon <= 0
        || colon == advertiseAddress.length() - 1
        || !advertiseAddress.substring(colon + 1).chars().allMatch(Character::isDigit)) {
      throw new IllegalArgumentException(
          "--advertise-address must be HOST:PORT, got '" + advertiseAddress + "'");
    }
  }

  static OrderingConfig from(
      String advertise, int port, Duration ttl, int sequenceMaxKeys, int maxHeld) {
    return new OrderingConfig(
        advertise.isEmpty() ? hostName() + ":" + port : advertise, ttl, sequenceMaxKeys, maxHeld);
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }

  @Override
  public String toString() {
    return "advertise-address="
        + advertiseAddress
        + " tag-lease-ttl="
        + Parsers.format(tagLeaseTtl)
        + " sequence-max-keys="
        + sequenceMaxKeys
        + " max-held-strict-calls="
        + maxHeldStrictCalls;
  }
}
