package io.leaf.server.ops;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * {@code GET /metrics} in the Prometheus text format, served by the JDK's HTTP server on one
 * thread of its own, so a scrape never takes a gRPC transport thread.
 */
public final class MetricsEndpoint implements AutoCloseable {

  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final HttpServer server;
  private final ExecutorService thread;

  /** @throws UncheckedIOException the address cannot be bound */
  public MetricsEndpoint(Metrics metrics, InetSocketAddress address) {
    try {
      server = HttpServer.create(address, 0);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve metrics on " + address + ": " + e.getMessage(),
          e);
    }
    thread = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "leaf-metrics-http");
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(thread);
    server.createContext("/metrics", exchange -> respond(exchange, metrics));
    server.start();
  }

  /** The bound port (useful with port 0). */
  public int port() {
    return server.getAddress().getPort();
  }

  private static void respond(HttpExchange exchange, Metrics metrics) throws IOException {
    try (exchange) {
      if (!exchange.getRequestURI().getPath().equals("/metrics")) {
        exchange.sendResponseHeaders(404, -1);
        return;
      }
      if (!exchange.getRequestMethod().equals("GET")) {
        exchange.getResponseHeaders().set("Allow", "GET");
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      byte[] body = metrics.scrape().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    thread.shutdownNow();
  }
}
