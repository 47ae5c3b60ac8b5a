package io.leaf.server.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Attributes;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.ServerTransportFilter;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.leaf.server.LeafServer;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.wiring.LeafServerBuilder;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdRequest;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code --max-connection-age} makes a busy client reconnect, and no call fails across it. */
class ConnectionAgeTest {

  @Test
  @Timeout(120)
  void maxConnectionAge_busyClient_reconnectsWithoutFailedCall(@TempDir Path dir) throws Exception {
    AtomicInteger connections = new AtomicInteger();
    NettyServerBuilder netty =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addTransportFilter(
                new ServerTransportFilter() {
                  @Override
                  public Attributes transportReady(Attributes attributes) {
                    connections.incrementAndGet();
                    return attributes;
                  }
                });
    ServerConfig config =
        ServerConfig.parse(
            new String[] {
              "--port",
              "0",
              "--db-url",
              "jdbc:h2:file:" + dir.resolve("leaf") + ";MODE=MySQL",
              "--max-connection-age",
              "1s",
              "--max-connection-age-grace",
              "1s"
            },
            env -> null);
    LeafServer server = LeafServerBuilder.forConfig(config).transport(netty).build().start();
    ManagedChannel channel =
        ManagedChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
    List<String> failures = new ArrayList<>();
    int calls = 0;
    try {
      LeafServiceGrpc.LeafServiceBlockingStub leaf = LeafServiceGrpc.newBlockingStub(channel);
      leaf.withDeadlineAfter(30, TimeUnit.SECONDS)
          .createTag(CreateTagRequest.newBuilder().setBizTag("aged").setStep(1000).build());
      long previous = 0;
      // Calls back to back, never idle, until the server has replaced the connection twice
      // (an age of 1 s with ±10% jitter): each GOAWAY falls among calls.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (connections.get() < 3 && System.nanoTime() - deadline < 0) {
        try {
          long id =
              leaf.withDeadlineAfter(10, TimeUnit.SECONDS)
                  .nextId(NextIdRequest.newBuilder().setBizTag("aged").build())
                  .getId();
          assertTrue(id > previous, "IDs increase: " + id + " after " + previous);
          previous = id;
        } catch (StatusRuntimeException e) {
          failures.add(e.getStatus().toString());
        }
        calls++;
      }
    } finally {
      channel.shutdownNow();
      server.stop();
    }
    assertTrue(
        connections.get() >= 3,
        "the server closed the client's connection for its age"
            + " and the client opened new ones; connections: "
            + connections.get());
    assertEquals(List.of(), failures, "no call of " + calls + " failed across the reconnects");
  }
}
