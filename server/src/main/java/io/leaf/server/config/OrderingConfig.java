package io.leaf.server.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;

/**
 * Where other servers reach this one for the STRICT tags it owns ({@code --advertise-address}) and
 * how long an owner lease lives ({@code --tag-lease-ttl}).
 *
 * @param advertiseAddress {@code HOST:PORT}
 * @param tagLeaseTtl an owner lease lives this long without renewal
 */
public record OrderingConfig(String advertiseAddress, Duration tagLeaseTtl) {

  /** The shortest TTL accepted: renewals every third of it must fit a database round trip. */
  public static final Duration MIN_TTL = Duration.ofMillis(300);

  public OrderingConfig {
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

  static OrderingConfig from(String advertise, int port, Duration ttl) {
    return new OrderingConfig(advertise.isEmpty() ? hostName() + ":" + port : advertise, ttl);
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
        + Parsers.format(tagLeaseTtl);
  }
}
