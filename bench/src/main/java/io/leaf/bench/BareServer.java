package io.leaf.bench;

import ch.qos.logback.classic.Level;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fastest unary server grpc-java gives, for the bare-server row; it prints {@code LISTENING
 * <port>} once serving.
 *
 * <p>Netty on loopback, the direct executor, the health service only, logging off (with logback's
 * default DEBUG, Netty's per-frame logging alone would halve its rate). {@link IsolatedServer}
 * starts it in a JVM of its own.
 */
public final class BareServer {

  private BareServer() {}

  public static void main(String[] args) throws Exception {
    ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME))
        .setLevel(Level.OFF);
    java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.OFF);
    HealthStatusManager health = new HealthStatusManager();
    Server server =
        NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .directExecutor()
            .addService(health.getHealthService())
            .build()
            .start();
    System.out.println("LISTENING " + server.getPort());
    System.out.flush();
    Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow));
    server.awaitTermination();
  }
}
