package io.leaf.server.config;

import java.time.Duration;

/**
 * How the server's HTTP ports behave: the API port and the bounds every HTTP port (this one and
 * {@code --metrics-port}) keeps against slow, stalled and numerous clients.
 *
 * @param port HTTP port of the Meituan-compatible endpoints, the monitor page and {@code /metrics};
 *     0: off
 * @param maxConnections connections each HTTP port holds open at once; one more is answered 429 and
 *     closed
 * @param readTimeout how long a request's line, headers and body may take to arrive, counted from
 *     its first byte; then 408 and the connection is closed
 * @param idleTimeout how long a connection may sit without a request (before the first one, and
 *     between keep-alive requests), and how long each answer may take to reach the socket (a client
 *     that does not read); then it is closed
 */
public record HttpConfig(int port, int maxConnections, Duration readTimeout, Duration idleTimeout) {

  /** The longest request line (method, path, version) a port accepts; longer is 414. */
  public static final int MAX_LINE_BYTES = 4096;

  /** The most header bytes a request may carry; more is 431. */
  public static final int MAX_HEADER_BYTES = 8192;

  /** The largest request body (no endpoint reads one); larger is 413. */
  public static final int MAX_BODY_BYTES = 8192;

  /**
   * The shortest {@code --http-read-timeout} the flag takes: below it a request from a client on
   * the same host could time out on a scheduling hiccup.
   */
  public static final Duration MIN_READ_TIMEOUT = Duration.ofMillis(100);

  public static final String MAX_CONNECTIONS_FLAG = "--http-max-connections";
  public static final String READ_TIMEOUT_FLAG = "--http-read-timeout";
  public static final String IDLE_TIMEOUT_FLAG = "--http-idle-timeout";

  /** The defaults of every bound, with the API port off. */
  public static final HttpConfig DEFAULTS =
      new HttpConfig(0, 1000, Duration.ofSeconds(10), Duration.ofSeconds(60));

  public HttpConfig {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be between 0 and 65535: " + port);
    }
    if (maxConnections < 1) {
      throw new IllegalArgumentException("maxConnections must be at least 1: " + maxConnections);
    }
    if (readTimeout.isNegative() || readTimeout.isZero()) {
      throw new IllegalArgumentException("readTimeout must be positive: " + readTimeout);
    }
    if (idleTimeout.isNegative() || idleTimeout.isZero()) {
      throw new IllegalArgumentException("idleTimeout must be positive: " + idleTimeout);
    }
  }

  public boolean enabled() {
    return port > 0;
  }

  /** The same bounds on another port. */
  public HttpConfig withPort(int newPort) {
    return new HttpConfig(newPort, maxConnections, readTimeout, idleTimeout);
  }

  @Override
  public String toString() {
    return "http-port="
        + port
        + " http-max-connections="
        + maxConnections
        + " http-read-timeout="
        + readTimeout
        + " http-idle-timeout="
        + idleTimeout;
  }
}
