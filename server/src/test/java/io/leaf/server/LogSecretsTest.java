package io.leaf.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.leaf.client.BearerToken;
import io.leaf.server.testing.Pace;
import io.leaf.server.testing.ServerProcess;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdRequest;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the packaged server writes to its log at every level: never a token, always the start line.
 */
@Tag("slow")
class LogSecretsTest {

  private static final String ADMIN = "admin-7f3c9e1d2b4a";
  private static final String CLIENT = "client-5e8a1f0c6d2b";
  private static final Pattern PORT = Pattern.compile("Leaf listening on port (\\d+)");

  @TempDir Path dir;

  private ServerProcess start(String level) throws Exception {
    return ServerProcess.start(
        Map.of("LEAF_LOG_LEVEL", level),
        "--port",
        "0",
        "--db-url",
        "jdbc:h2:file:" + dir.resolve("leaf") + ";MODE=MySQL",
        "--admin-token",
        ADMIN,
        "--client-token",
        CLIENT);
  }

  private static int port(ServerProcess server) {
    Matcher m = PORT.matcher(server.output());
    assertTrue(m.find(), "the start line names the port:\n" + server.output());
    return Integer.parseInt(m.group(1));
  }

  @Test
  @Timeout(120)
  void debugLevel_callsWithBothTokens_neitherTokenLogged() throws Exception {
    try (ServerProcess server = start("DEBUG")) {
      assertTrue(
          server.awaitLine("Leaf listening", 60, TimeUnit.SECONDS),
          "the server started:\n" + server.output());
      ManagedChannel channel =
          NettyChannelBuilder.forAddress("127.0.0.1", port(server)).usePlaintext().build();
      try {
        LeafServiceGrpc.LeafServiceBlockingStub stub =
            LeafServiceGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS);
        stub.withCallCredentials(new BearerToken(ADMIN))
            .createTag(CreateTagRequest.newBuilder().setBizTag("secret-test").build());
        for (int i = 0; i < 3; i++) {
          stub.withCallCredentials(new BearerToken(CLIENT))
              .nextId(NextIdRequest.newBuilder().setBizTag("secret-test").build());
        }
        try {
          stub.withCallCredentials(new BearerToken(CLIENT + "-wrong"))
              .nextId(NextIdRequest.newBuilder().setBizTag("secret-test").build());
        } catch (StatusRuntimeException expected) {
          // refused: what matters is what the log says about it
        }
      } finally {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
      // The calls' logging (if any) has had time to reach the output.
      Pace.holdMillis(500);
      String log = server.output();
      assertTrue(log.contains("DEBUG"), "the server logs at DEBUG:\n" + tail(log));
      assertFalse(log.contains(ADMIN), "the admin token is in the log:\n" + tail(log));
      assertFalse(log.contains(CLIENT), "the client token is in the log:\n" + tail(log));
    }
  }

  @Test
  @Timeout(120)
  void unknownLevel_start_exitsTwoNamingTheLevels() throws Exception {
    for (String level : new String[] {"WARNING", "garbage"}) {
      try (ServerProcess server = start(level)) {
        assertEquals(2, server.awaitExit(60, TimeUnit.SECONDS), server.output());
        assertTrue(
            server
                .output()
                .contains(
                    "--log-level must be one of TRACE, DEBUG, INFO, WARN,"
                        + " ERROR, OFF, got "
                        + level),
            server.output());
      }
    }
  }

  @Test
  @Timeout(120)
  void warnLevel_start_stillPrintsTheStartLine() throws Exception {
    try (ServerProcess server = start("warn")) {
      assertTrue(
          server.awaitLine("Leaf listening on port", 60, TimeUnit.SECONDS),
          "the start line at WARN:\n" + server.output());
      assertFalse(
          server.output().contains(" INFO  [main] i.l.s.LeafServer"),
          "other INFO lines are hidden at WARN:\n" + server.output());
    }
  }

  private static String tail(String log) {
    return log.length() > 4000 ? "…" + log.substring(log.length() - 4000) : log;
  }
}
