package io.leaf.server.grpc;

import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.leaf.server.config.ApiConfig;
import io.leaf.server.config.ConnectionBounds;
import java.util.concurrent.TimeUnit;

/**
 * The limits of one client connection on the Netty server: at most {@code
 * --max-calls-per-connection} concurrent calls, and GOAWAY once it is older than {@code
 * --max-connection-age}, closed after {@code --max-connection-age-grace}.
 *
 * <p>Why: a gRPC client keeps one HTTP/2 connection for its lifetime. Behind a Kubernetes ClusterIP
 * Service that connection is balanced once, when it is opened, so servers the autoscaler adds get
 * no traffic from clients already connected. grpc-java's Netty server does the work (it adds ±10%
 * jitter so clients do not reconnect together); this class only maps the flags onto it. Calls
 * started after the GOAWAY go to a new connection.
 */
public final class ConnectionLimits {

  private ConnectionLimits() {}

  /** Sets the limits on {@code netty}; an age of zero ({@code off}) sets no age. */
  public static void apply(NettyServerBuilder netty, ApiConfig api) {
    // HTTP/2's SETTINGS_MAX_CONCURRENT_STREAMS: a client holds further calls until one ends.
    ConnectionBounds bounds = api.connections();
    netty.maxConcurrentCallsPerConnection(bounds.maxCalls());
    if (!bounds.maxAge().isZero()) {
      netty.maxConnectionAge(bounds.maxAge().toNanos(), TimeUnit.NANOSECONDS);
      netty.maxConnectionAgeGrace(bounds.maxAgeGrace().toNanos(), TimeUnit.NANOSECONDS);
    }
  }
}
