package io.leaf.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.testing.Poll;
import io.leaf.server.wiring.LeafServerBuilder;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * {@link LeafServer#stop()} ends every thread the production wiring made for the server, the
 * engine's included (its loaders, first loaders, deadline thread and coarse ticker are made by
 * {@link LeafServerBuilder}, never by the engine).
 */
@Isolated
class LeafServerStopTest {

  private static final List<String> ENGINE_THREADS =
      List.of("leaf-loader-", "leaf-first-loader-", "leaf-wait-deadlines", "leaf-coarse-ticker");

  @Test
  @Timeout(60)
  void stop_afterLoads_endsTheEngineThreadsAndEveryOtherServerThread(@TempDir Path dir)
      throws Exception {
    Set<Thread> before = leafThreads();
    ServerConfig config =
        ServerConfig.parse(
            new String[] {"--port", "0", "--db-url", "jdbc:h2:file:" + dir.resolve("leaf")},
            env -> null);
    String name = InProcessServerBuilder.generateName();
    LeafServer server =
        LeafServerBuilder.forConfig(config)
            .transport(InProcessServerBuilder.forName(name))
            .build()
            .start();
    ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
    Set<Thread> started;
    try {
      LeafServiceGrpc.LeafServiceBlockingStub leaf =
          LeafServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
      leaf.createTag(CreateTagRequest.newBuilder().setBizTag("order").setStep(10).build());
      // The first call waits on a first load (a deadline scheduled); passing 10% of the segment
      // starts a preload on the loaders of served tags.
      for (int i = 1; i <= 5; i++) {
        assertEquals(i, leaf.nextId(NextIdRequest.newBuilder().setBizTag("order").build()).getId());
      }
      assertTrue(
          Poll.until(
              () ->
                  ENGINE_THREADS.stream()
                      .allMatch(
                          prefix ->
                              leafThreads().stream()
                                  .anyMatch(
                                      t -> !before.contains(t) && t.getName().startsWith(prefix))),
              Duration.ofSeconds(10)),
          "every engine thread ran: " + names(leafThreads()));
      started = leafThreads();
      started.removeAll(before);
    } finally {
      channel.shutdownNow();
      server.stop();
    }

    assertTrue(
        Poll.until(() -> started.stream().noneMatch(Thread::isAlive), Duration.ofSeconds(10)),
        "still running after stop: "
            + names(started.stream().filter(Thread::isAlive).collect(Collectors.toSet())));
  }

  private static Set<Thread> leafThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("leaf-"))
        .collect(Collectors.toSet());
  }

  private static List<String> names(Set<Thread> threads) {
    return threads.stream().map(Thread::getName).sorted().toList();
  }
}
