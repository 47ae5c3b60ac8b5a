package io.leaf.server.api;

import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.leaf.server.config.ApiConfig;
import java.util.concurrent.TimeUnit;

/**
 * Sends GOAWAY to a client connection older than {@code --max-connection-age}, then closes it
 * after {@code --max-connection-age-grace}; calls started after the GOAWAY go to a new connection.
 */
/*
 * Why: a gRPC client keeps one HTTP/2 connection for its lifetime. Behind a Kubernetes ClusterIP
 * Service that connection is balanced once, when it is opened, so servers the autoscaler adds get
 * no traffic from clients already connected. grpc-java's Netty server does the work (it adds
 * ±10% jitter so clients do not reconnect together); this class only maps the flags onto it.
 */
public final class ConnectionAge {

  private ConnectionAge() {}

  /** Sets the age and grace on {@code netty}; an age of zero ({@code off}) sets nothing. */
  public static void apply(NettyServerBuilder netty, ApiConfig api) {
    if (!api.maxConnectionAge().isZero()) {
      netty.maxConnectionAge(api.maxConnectionAge().toNanos(), TimeUnit.NANOSECONDS);
      netty.maxConnectionAgeGrace(api.maxConnectionAgeGrace().toNanos(), TimeUnit.NANOSECONDS);
    }
  }
}
