package io.leaf.bench;

import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.leaf.server.LeafServer;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.store.ForwardingSegmentStore;
import io.leaf.server.store.SegmentRange;
import io.leaf.server.store.StoreUnavailableException;
import io.leaf.server.store.TagAlreadyExistsException;
import io.leaf.server.wiring.LeafServerBuilder;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * A real Leaf server in a JVM of its own, so that its threads and memory can be read from outside
 * and a heap limit applies to it alone ({@link IsolatedServer} starts it). Segment loads of tags
 * whose name starts with {@value #STALLED_PREFIX} never return: a database that stalls.
 *
 * <p>Uses only a small server API ({@code LeafServerBuilder}, {@code ServerConfig.parse}, {@code
 * ForwardingSegmentStore}), so the same measurement can run against another build's server of this
 * API ({@code --server-classpath}).
 *
 * <p>Arguments: {@code <db-url> <db-user> <db-password> <tag=step,...> [server flags...]}. Prints
 * {@code LISTENING <port>} once serving.
 */
public final class StressServer {

  static final String STALLED_PREFIX = "stalled.";

  private StressServer() {}

  public static void main(String[] args) throws Exception {
    List<String> flags =
        new ArrayList<>(
            List.of(
                "--port",
                "0",
                "--db-url",
                args[0],
                "--db-user",
                args[1],
                "--db-password",
                args[2]));
    flags.addAll(Arrays.asList(args).subList(4, args.length));
    ServerConfig config = ServerConfig.parse(flags.toArray(String[]::new), env -> null);
    LeafServer server =
        LeafServerBuilder.forConfig(config)
            .transport(
                NettyServerBuilder.forAddress(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)))
            .decorateStore(Stalling::new)
            .build();
    server.start();
    for (String tagStep : args[3].split(",")) {
      String[] parts = tagStep.split("=");
      try {
        server.store().createTag(parts[0], 1, Integer.parseInt(parts[1]), "benchmark");
      } catch (TagAlreadyExistsException e) {
        server.store().updateStep(parts[0], Integer.parseInt(parts[1]));
      }
    }
    System.out.println("LISTENING " + server.port());
    System.out.flush();
    Runtime.getRuntime().addShutdownHook(new Thread(server::stop));
    server.awaitTermination();
  }

  /** Loads of stalled tags wait until the loader thread is interrupted (the server stops). */
  private static final class Stalling extends ForwardingSegmentStore {
    Stalling(io.leaf.server.store.SegmentStore delegate) {
      super(delegate);
    }

    @Override
    public SegmentRange nextSegment(String bizTag, int step) {
      if (bizTag.startsWith(STALLED_PREFIX)) {
        try {
          new CountDownLatch(1).await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new StoreUnavailableException("stalled database: interrupted", e);
        }
      }
      return super.nextSegment(bizTag, step);
    }
  }
}
