package io.leaf.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.testing.JulCapture;
import io.leaf.server.wiring.LeafServerBuilder;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.IdBatch;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;
import org.slf4j.LoggerFactory;

/** Cancelling a NextIdBatch is normal: over real Netty it logs nothing above DEBUG. */
@Isolated
class QuietCancelTest {

  @Test
  @Timeout(120)
  void nextIdBatch_cancelledByReaderMidStream_nothingLoggedAboveDebug(@TempDir Path dir)
      throws Exception {
    JulCapture jul = null;
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
    Level rootLevel = root.getLevel();
    root.setLevel(Level.INFO);
    logged.start();

    LeafServer server =
        LeafServerBuilder.forConfig(
                ServerConfig.parse(
                    new String[] {"--port", "0", "--db-url", "jdbc:h2:file:" + dir.resolve("leaf")},
                    env -> null))
            .build()
            .start();
    ManagedChannel channel =
        ManagedChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
    try {
      LeafServiceGrpc.LeafServiceBlockingStub leaf = LeafServiceGrpc.newBlockingStub(channel);
      leaf.createTag(CreateTagRequest.newBuilder().setBizTag("bulk").setStep(1_000_000).build());
      jul = JulCapture.start();
      root.addAppender(logged);
      for (int i = 0; i < 5; i++) {
        Context.CancellableContext call = Context.current().withCancellation();
        int read =
            call.call(
                () -> {
                  Iterator<IdBatch> it =
                      LeafServiceGrpc.newBlockingStub(channel)
                          .nextIdBatch(
                              NextIdBatchRequest.newBuilder()
                                  .setBizTag("bulk")
                                  .setCount(10_000_000)
                                  .setChunkSize(100_000)
                                  .build());
                  return it.next().getIdsCount();
                });
        call.cancel(null);
        assertEquals(100_000, read, "one chunk read before the cancel");
      }
      // A unary call after the cancels: the connection is healthy and the server has had time to
      // process the resets it received.
      long id = leaf.nextId(NextIdRequest.newBuilder().setBizTag("bulk").build()).getId();
      assertTrue(id > 0);
    } finally {
      channel.shutdownNow();
      server.stop();
      if (jul != null) {
        jul.close();
      }
      root.detachAppender(logged);
      root.setLevel(rootLevel);
    }
    List<String> leafLines =
        logged.list.stream()
            .filter(e -> e.getLevel().isGreaterOrEqual(Level.INFO))
            .filter(e -> !e.getFormattedMessage().startsWith("Leaf stopped"))
            .filter(e -> !e.getFormattedMessage().startsWith("database reachable"))
            // The snowflake worker lease's own lifecycle (leased at start, released at stop).
            .filter(e -> !e.getFormattedMessage().startsWith("worker ID "))
            // The stop's hand-back of unissued IDs: lifecycle too.
            .filter(e -> !e.getFormattedMessage().startsWith("handed back "))
            .map(e -> e.getLevel() + " " + e.getLoggerName() + ": " + e.getFormattedMessage())
            .toList();
    assertEquals(List.of(), jul.records(), "grpc/netty log records above FINE");
    assertEquals(List.of(), leafLines, "server log lines above DEBUG");
  }
}
