package io.leaf.server.http;

import io.leaf.server.config.HttpConfig;
import io.leaf.server.metrics.Metrics;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ThreadFactory;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The server's HTTP ports, one {@link LeafHttpServer} each: {@code --metrics-port} serves {@code
 * GET /metrics}; {@code --http-port} serves the routes it is given (the Meituan-compatible
 * endpoints, the monitor page and {@code /metrics}). Both keep the bounds of {@link HttpConfig}.
 */
public final class HttpEndpoints implements AutoCloseable {

  /** The Prometheus text exposition format. */
  public static final String PROMETHEUS = "text/plain; version=0.0.4; charset=utf-8";

  private final LeafHttpServer metricsPort;
  private final LeafHttpServer apiPort;

  private HttpEndpoints(LeafHttpServer metricsPort, LeafHttpServer apiPort) {
    this.metricsPort = metricsPort;
    this.apiPort = apiPort;
  }

  /**
   * Binds the ports that are on: {@code metricsPort} when positive (with {@code metrics}), and
   * {@code config.port()} when positive (with {@code api}).
   *
   * @param metrics the registry; null when neither port serves it
   * @param threads makes the ports' threads (see {@link LeafHttpServer#start})
   * @throws IllegalArgumentException a port cannot be bound; one line naming its flag
   */
  public static HttpEndpoints start(
      int metricsPort,
      HttpConfig config,
      Metrics metrics,
      HttpRoutes api,
      Function<String, ThreadFactory> threads) {
    Consumer<String> refusals = metrics == null ? flag -> {} : metrics::limitRefused;
    LeafHttpServer forMetrics = null;
    if (metricsPort > 0) {
      forMetrics =
          bind(
              "metrics",
              "--metrics-port",
              metricsPort,
              config,
              metricsRoutes(metrics),
              threads,
              refusals);
    }
    LeafHttpServer forApi = null;
    if (config.enabled()) {
      try {
        forApi = bind("api", "--http-port", config.port(), config, api, threads, refusals);
      } catch (IllegalArgumentException e) {
        if (forMetrics != null) {
          forMetrics.close();
        }
        throw e;
      }
    }
    return new HttpEndpoints(forMetrics, forApi);
  }

  private static LeafHttpServer bind(
      String name,
      String flag,
      int port,
      HttpConfig config,
      HttpRoutes routes,
      Function<String, ThreadFactory> threads,
      Consumer<String> refusals) {
    try {
      return LeafHttpServer.start(
          name, new InetSocketAddress(port), config, routes, threads, refusals);
    } catch (UncheckedIOException e) {
      throw new IllegalArgumentException(flag + " " + e.getMessage(), e);
    }
  }

  /** {@code GET /metrics}: the registry's Prometheus text. */
  public static HttpRoutes metricsRoutes(Metrics metrics) {
    return new HttpRoutes().get("/metrics", metricsRoute(metrics));
  }

  /** Answers with the Prometheus text of {@code metrics}. */
  public static HttpRoutes.Route metricsRoute(Metrics metrics) {
    return call -> call.respond(HttpResponseStatus.OK, PROMETHEUS, metrics.scrape());
  }

  /** The bound {@code --metrics-port}; 0 when off. */
  public int metricsPort() {
    return metricsPort == null ? 0 : metricsPort.port();
  }

  /** Connections open now on {@code --http-port}. */
  public int httpConnections() {
    return apiPort == null ? 0 : apiPort.openConnections();
  }

  /** The bound {@code --http-port}; 0 when off. */
  public int httpPort() {
    return apiPort == null ? 0 : apiPort.port();
  }

  @Override
  public void close() {
    if (apiPort != null) {
      apiPort.close();
    }
    if (metricsPort != null) {
      metricsPort.close();
    }
  }
}
