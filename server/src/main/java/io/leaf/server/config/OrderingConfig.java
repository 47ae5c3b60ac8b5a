package io.leaf.server.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;

/**
 * Where other servers reach this one for the STRICT tags it owns ({@code --advertise-address}) and
 * how long an owner lease lives ({@code --tag-lease-ttl}), and the keys of sequences kept in memory
 * ({@code --sequence-max-keys}).
 *
 * @param advertiseAddress {@code HOST:PORT}
 * @param tagLeaseTtl an owner lease lives this long without renewal
 * @param sequenceMaxKeys NextSequence keys held in memory at once, over every tag
 */
public record OrderingConfig(String advertiseAddress, Duration tagLeaseTtl, int sequenceMaxKeys) {

  /** The default of {@code --sequence-max-keys}. */
  public static final int DEFAULT_SEQUENCE_MAX_KEYS = 1_000_000;

  public OrderingConfig(String advertiseAddress, Duration tagLeaseTtl) {
    this(advertiseAddress, tagLeaseTtl, DEFAULT_SEQUENCE_MAX_KEYS);
  }

  /** The shortest TTL accepted: renewals every third of it must fit a database round trip. */
  public static final Duration MIN_TTL = Duration.ofMillis(300);

  public OrderingConfig {
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

  static OrderingConfig from(String advertise, int port, Duration ttl, int sequenceMaxKeys) {
    return new OrderingConfig(
        advertise.isEmpty() ? hostName() + ":" + port : advertise, ttl, sequenceMaxKeys);
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
        + sequenceMaxKeys;
  }
}
