package io.leaf.server.ops;

import com.zaxxer.hikari.HikariDataSource;
import io.grpc.InsecureServerCredentials;
import io.grpc.ServerBuilder;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptor;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.snowflake.Snowflake;
import io.leaf.server.sweep.IdleTagSweeper;
import java.util.function.BooleanSupplier;

/**
 * What {@link OpsConfig} turns on, wired in one place: the metrics registry (its HTTP ports are
 * {@code io.leaf.server.http}'s), TLS credentials and the token check. Each {@code watch}/{@code intercept} method does nothing for
 * what is off, so the server wires it the same way whatever is configured.
 */
public final class Operations implements AutoCloseable {

  private final OpsConfig config;
  private final Metrics metrics;
  private final TlsCredentials tls;

  private Operations(OpsConfig config, Metrics metrics, TlsCredentials tls) {
    this.config = config;
    this.metrics = metrics;
    this.tls = tls;
  }

  /**
   * Reads the TLS files, as configured.
   *
   * @throws IllegalArgumentException one line naming the flag (and file) that cannot be used
   */
  public static Operations open(OpsConfig config) {
    return open(config, false);
  }

  /**
   * {@link #open(OpsConfig)}, with the metrics registry also when {@code metricsServed} (the HTTP
   * port serves {@code /metrics} too).
   */
  public static Operations open(OpsConfig config, boolean metricsServed) {
    TlsCredentials tls = config.tlsEnabled() ? TlsCredentials.load(config) : null;
    Metrics metrics = config.metricsEnabled() || metricsServed ? new Metrics() : null;
    return new Operations(config, metrics, tls);
  }

  /** The registry; null when no port serves metrics. */
  public Metrics metrics() {
    return metrics;
  }

  public OpsConfig config() {
    return config;
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
    if (metrics != null) {
      metrics.close();
    }
    if (tls != null) {
      tls.close();
    }
  }
}
