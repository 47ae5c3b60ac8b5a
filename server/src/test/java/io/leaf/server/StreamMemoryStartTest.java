package io.leaf.server;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.inprocess.InProcessServerBuilder;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.wiring.LeafServerBuilder;
import org.junit.jupiter.api.Test;

/** A --max-stream-memory this JVM cannot give stops the start before anything is opened. */
class StreamMemoryStartTest {

  @Test
  void production_streamMemoryAboveHalfTheJvm_refusedBeforeTheDatabaseIsOpened() {
    ServerConfig config =
        ServerConfig.parse(
            new String[] {"--port", "0", "--max-stream-memory", "1024g"}, env -> null);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                LeafServerBuilder.forConfig(config)
                    .transport(InProcessServerBuilder.forName("refused"))
                    .decorateStore(
                        store -> {
                          // Reached only once the pool is open: the check must come first.
                          throw new AssertionError(
                              "the database was opened before --max-stream-memory was"
                                  + " checked");
                        })
                    .build());
    assertTrue(
        e.getMessage().startsWith("--max-stream-memory 1099511627776 is more than half"),
        e.getMessage());
  }
}
