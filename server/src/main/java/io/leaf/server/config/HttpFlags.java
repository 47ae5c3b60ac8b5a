package io.leaf.server.config;

import java.time.Duration;

/**
 * The flags of the HTTP ports (the Meituan Leaf API, the monitor page and metrics) and their
 * connections; {@link Flags} lists them under their headings.
 */
final class HttpFlags {
  private static final HttpConfig HTTP = HttpConfig.DEFAULTS;
  static final Flag<Integer> METRICS_PORT =
      Flag.of(
          "metrics-port",
          "0",
          "HTTP port of GET /metrics (Prometheus text); 0: no metrics",
          Parsers.integer(0, 65535));
  static final Flag<Integer> HTTP_PORT =
      Flag.of(
          "http-port",
          Integer.toString(HTTP.port()),
          "HTTP port of GET /api/segment/get/{tag}, /api/snowflake/get/{key} (Meituan Leaf's), the"
              + " monitor page GET / and GET /metrics; 0: off",
          Parsers.integer(0, 65535));
  static final Flag<Integer> HTTP_MAX_CONNECTIONS =
      Flag.of(
          "http-max-connections",
          Integer.toString(HTTP.maxConnections()),
          "connections each HTTP port (--http-port,"
              + " --metrics-port) holds open; one more is answered 429 and closed",
          Parsers.integer(1, 1_000_000));
  static final Flag<Duration> HTTP_READ_TIMEOUT =
      Flag.of(
          "http-read-timeout",
          Parsers.format(HTTP.readTimeout()),
          "time a request's line, headers and body have to"
              + " arrive from its first byte (then 408); at least 100ms",
          Parsers.duration());
  static final Flag<Duration> HTTP_IDLE_TIMEOUT =
      Flag.of(
          "http-idle-timeout",
          Parsers.format(HTTP.idleTimeout()),
          "an HTTP connection without a request in progress, or whose answer does not reach the"
              + " socket (a client not reading), is closed after this",
          Parsers.duration());

  private HttpFlags() {}
}
