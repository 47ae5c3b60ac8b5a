package io.leaf.server.ops;

import com.zaxxer.hikari.HikariDataSource;
import io.grpc.InsecureServerCredentials;
import io.grpc.ServerBuilder;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptor;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.snowflake.Snowflake;
import io.leaf.server.sweep.IdleTagSweeper;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.function.BooleanSupplier;

/**
 * What {@link OpsConfig} turns on, wired in one place: metrics (registry and endpoint), TLS
 * credentials and the token check. Each {@code watch}/{@code intercept} method does nothing for
 * what is off, so the server wires it the same way whatever is configured.
 */
public final class Operations implements AutoCloseable {

  private final OpsConfig config;
  private final Metrics metrics;
  private final MetricsEndpoint endpoint;
  private final TlsCredentials tls;

  private Operations(OpsConfig config, Metrics metrics, MetricsEndpoint endpoint,
      TlsCredentials tls) {
    this.config = config;
    this.metrics = metrics;
    this.endpoint = endpoint;
    this.tls = tls;
  }

  /**
   * Reads the TLS files and binds the metrics port, as configured.
   *
   * @throws IllegalArgumentException one line naming the flag (and file) that cannot be used
   */
  public static Operations open(OpsConfig config) {
    TlsCredentials tls = config.tlsEnabled() ? TlsCredentials.load(config) : null;
    Metrics metrics = null;
    MetricsEndpoint endpoint = null;
    if (config.metricsEnabled()) {
      metrics = new Metrics();
      try {
        endpoint = new MetricsEndpoint(metrics, new InetSocketAddress(config.metricsPort()));
      } catch (UncheckedIOException e) {
        metrics.close();
        if (tls != null) {
          tls.close();
        }
        throw new IllegalArgumentException("--metrics-port " + e.getMessage());
      }
    }
    return new Operations(config, metrics, endpoint, tls);
  }

  /** TLS when configured, else plaintext. */
  public ServerCredentials serverCredentials() {
    return tls != null ? tls.credentials() : InsecureServerCredentials.create();
  }

  /** Adds the token check and then the metrics interceptors (outermost: they see refusals too). */
  public void intercept(ServerBuilder<?> builder) {
    if (config.adminToken() != null) {
      builder.intercept(new TokenAuthInterceptor(config.adminToken(), config.clientToken()));
    }
    if (metrics != null) {
      for (ServerInterceptor interceptor : metrics.interceptors()) {
        builder.intercept(interceptor);
      }
    }
  }

  public void watchPool(HikariDataSource pool) {
    if (metrics != null) {
      metrics.watchPool(pool);
    }
  }

  public void watchEngine(SegmentAllocator allocator, IdleTagSweeper sweeper,
      BooleanSupplier databaseUp) {
    if (metrics != null) {
      metrics.watchEngine(allocator, sweeper, databaseUp);
    }
  }

  public void watchSnowflake(Snowflake snowflake) {
    if (metrics != null) {
      metrics.watchSnowflake(snowflake);
    }
  }

  @Override
  public void close() {
    if (endpoint != null) {
      endpoint.close();
    }
    if (metrics != null) {
      metrics.close();
    }
    if (tls != null) {
      tls.close();
    }
  }
}
