package io.leaf.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.StreamObserver;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.wiring.LeafServerBuilder;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The real Netty server on a free port, called through a real channel as grpcurl would. */
class EndToEndTest {

  private static LeafServer start(Path dataDir) throws Exception {
    ServerConfig config =
        ServerConfig.parse(
            new String[] {
              "--port",
              "0",
              "--db-url",
              "jdbc:h2:file:" + dataDir.resolve("leaf").toAbsolutePath() + ";MODE=MySQL"
            },
            env -> null);
    return LeafServerBuilder.forConfig(config).build().start();
  }

  private static ManagedChannel channel(LeafServer server) {
    return ManagedChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
  }

  @Test
  void netty_reflectionHealthAndIds_workOverRealChannel() throws Exception {
    Path dir = Files.createTempDirectory("leaf-e2e-");
    LeafServer server = start(dir);
    ManagedChannel channel = channel(server);
    try {
      List<String> services = listServices(channel);
      assertTrue(
          services.contains("leaf.v1.LeafService"), "reflection lists the service: " + services);
      assertTrue(services.contains("grpc.health.v1.Health"), "and health: " + services);

      ServingStatus health =
          HealthGrpc.newBlockingStub(channel)
              .check(HealthCheckRequest.newBuilder().setService("leaf.v1.LeafService").build())
              .getStatus();
      assertEquals(ServingStatus.SERVING, health);

      LeafServiceGrpc.LeafServiceBlockingStub leaf =
          LeafServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
      leaf.createTag(CreateTagRequest.newBuilder().setBizTag("e2e").build());
      assertEquals(1, leaf.nextId(NextIdRequest.newBuilder().setBizTag("e2e").build()).getId());
      List<Long> ids = new ArrayList<>();
      leaf.nextIdBatch(
              NextIdBatchRequest.newBuilder()
                  .setBizTag("e2e")
                  .setCount(1000)
                  .setChunkSize(128)
                  .build())
          .forEachRemaining(b -> ids.addAll(b.getIdsList()));
      assertEquals(1000, ids.stream().distinct().count());
      assertEquals(2, ids.get(0));
    } finally {
      channel.shutdownNow();
      server.stop();
    }
  }

  @Test
  void restart_sameH2File_newIdsAllLarger() throws Exception {
    Path dir = Files.createTempDirectory("leaf-restart-");
    long maxBefore = 0;
    LeafServer first = start(dir);
    ManagedChannel c1 = channel(first);
    try {
      LeafServiceGrpc.LeafServiceBlockingStub leaf = LeafServiceGrpc.newBlockingStub(c1);
      leaf.createTag(CreateTagRequest.newBuilder().setBizTag("durable").setStep(50).build());
      for (int i = 0; i < 120; i++) {
        maxBefore =
            Math.max(
                maxBefore,
                leaf.nextId(NextIdRequest.newBuilder().setBizTag("durable").build()).getId());
      }
    } finally {
      c1.shutdownNow();
      first.stop();
    }
    LeafServer second = start(dir);
    ManagedChannel c2 = channel(second);
    try {
      LeafServiceGrpc.LeafServiceBlockingStub leaf = LeafServiceGrpc.newBlockingStub(c2);
      for (int i = 0; i < 120; i++) {
        long id = leaf.nextId(NextIdRequest.newBuilder().setBizTag("durable").build()).getId();
        assertTrue(id > maxBefore, "after restart " + id + " must exceed " + maxBefore);
      }
    } finally {
      c2.shutdownNow();
      second.stop();
    }
  }

  /** What {@code grpcurl -plaintext host:port list} does. */
  private static List<String> listServices(ManagedChannel channel) throws Exception {
    CompletableFuture<List<String>> result = new CompletableFuture<>();
    StreamObserver<ServerReflectionRequest> req =
        ServerReflectionGrpc.newStub(channel)
            .serverReflectionInfo(
                new StreamObserver<>() {
                  @Override
                  public void onNext(ServerReflectionResponse r) {
                    result.complete(
                        r.getListServicesResponse().getServiceList().stream()
                            .map(ServiceResponse::getName)
                            .collect(Collectors.toList()));
                  }

                  @Override
                  public void onError(Throwable t) {
                    result.completeExceptionally(t);
                  }

                  @Override
                  public void onCompleted() {}
                });
    req.onNext(ServerReflectionRequest.newBuilder().setListServices("*").build());
    req.onCompleted();
    return result.get(10, TimeUnit.SECONDS);
  }
}
