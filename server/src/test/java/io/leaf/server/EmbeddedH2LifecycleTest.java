package io.leaf.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.leaf.server.testing.Poll;
import io.leaf.server.testing.ServerProcess;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.NextSnowflakeIdRequest;
import io.leaf.v1.SnowflakeServiceGrpc;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The packaged server on the README's embedded H2 file, stopped with SIGTERM and started again: the
 * server, not H2's own shutdown hook, closes the database, so every stop hands its unissued IDs
 * back and releases its worker ID; and on a database no other process can open, the first snowflake
 * ID comes without a quarantine.
 */
@Tag("slow")
@Execution(ExecutionMode.CONCURRENT)
@Order(1) // among the longest: started first
@ResourceLock("EmbeddedH2LifecycleTest")
class EmbeddedH2LifecycleTest {

  private static final Pattern LISTENING = Pattern.compile("Leaf listening on port (\\d+)");
  private static final Pattern RELEASED = Pattern.compile("worker ID \\d+ released");
  private static final Pattern HANDED_BACK =
      Pattern.compile(
          "handed back [1-9]\\d* unissued IDs of 1 tags; 0 tags not \\(0 taken on since, 0 failed");
  private static final int STOPS = 10;

  @TempDir Path dir;

  private String url() {
    return "jdbc:h2:file:" + dir.resolve("leaf").toAbsolutePath() + ";MODE=MySQL";
  }

  private static ManagedChannel channel(ServerProcess server) throws Exception {
    assertTrue(
        server.awaitLine("Leaf listening", 120, TimeUnit.SECONDS),
        "the server started:\n" + server.output());
    Matcher m = LISTENING.matcher(server.output());
    assertTrue(m.find(), server.output());
    ManagedChannel channel =
        ManagedChannelBuilder.forAddress("127.0.0.1", Integer.parseInt(m.group(1)))
            .usePlaintext()
            .build();
    // Listening is not ready: on a loaded machine the H2 file's first open can outlast the start
    // check, and the server says NOT_SERVING until its database answers.
    assertTrue(
        Poll.until(() -> serving(channel), Duration.ofSeconds(60)),
        "SERVING within 60 s:\n" + server.output());
    return channel;
  }

  private static boolean serving(ManagedChannel channel) {
    try {
      return HealthGrpc.newBlockingStub(channel)
              .withDeadlineAfter(2, TimeUnit.SECONDS)
              .check(HealthCheckRequest.getDefaultInstance())
              .getStatus()
          == HealthCheckResponse.ServingStatus.SERVING;
    } catch (StatusRuntimeException e) {
      return false;
    }
  }

  private static void stop(ServerProcess server, ManagedChannel channel) throws Exception {
    server.signal("TERM");
    Integer exit = server.awaitExit(60, TimeUnit.SECONDS);
    channel.shutdownNow();
    assertNotNull(exit, "stopped within 60 s:\n" + server.output());
  }

  @Test
  @Timeout(900)
  void sigterm_h2File_everyStopHandsBackAndReleasesTheWorkerId() throws Exception {
    long last = 0;
    for (int round = 1; round <= STOPS; round++) {
      try (ServerProcess server = ServerProcess.start("--port", "0", "--db-url", url())) {
        ManagedChannel channel = channel(server);
        var leaf = LeafServiceGrpc.newBlockingStub(channel);
        if (round == 1) {
          leaf.withDeadlineAfter(30, TimeUnit.SECONDS)
              .createTag(CreateTagRequest.newBuilder().setBizTag("orders").setStep(1000).build());
        }
        for (int i = 0; i < 3; i++) {
          long id =
              leaf.withDeadlineAfter(30, TimeUnit.SECONDS)
                  .nextId(NextIdRequest.newBuilder().setBizTag("orders").build())
                  .getId();
          assertEquals(
              last + 1,
              id,
              "round "
                  + round
                  + ": the IDs go on right after the last"
                  + " one issued (the previous stop handed the rest back):\n"
                  + server.output());
          last = id;
        }
        assertTrue(
            server.awaitLine("worker ID", 120, TimeUnit.SECONDS),
            "a worker ID was claimed before the stop:\n" + server.output());
        stop(server, channel);
        String out = server.output();
        assertFalse(out.contains("could not be released"), "round " + round + ":\n" + out);
        assertFalse(out.contains("Database is already closed"), "round " + round + ":\n" + out);
        assertTrue(RELEASED.matcher(out).find(), "round " + round + ": released:\n" + out);
        assertTrue(HANDED_BACK.matcher(out).find(), "round " + round + ": handed back:\n" + out);
      }
    }
  }

  @Test
  @Timeout(300)
  void start_exclusiveH2File_firstSnowflakeIdWithoutQuarantine() throws Exception {
    for (int round = 1; round <= 2; round++) {
      try (ServerProcess server = ServerProcess.start("--port", "0", "--db-url", url())) {
        ManagedChannel channel = channel(server);
        long listening = System.nanoTime(); // SERVING: the database answered
        var snowflake = SnowflakeServiceGrpc.newBlockingStub(channel);
        java.util.Optional<Long> first =
            Poll.value(
                () -> {
                  try {
                    snowflake
                        .withDeadlineAfter(2, TimeUnit.SECONDS)
                        .nextSnowflakeId(NextSnowflakeIdRequest.getDefaultInstance());
                    return java.util.Optional.of(
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - listening));
                  } catch (StatusRuntimeException e) {
                    return java.util.Optional.empty();
                  }
                },
                Duration.ofSeconds(60));
        assertTrue(first.isPresent(), "no snowflake ID at all:\n" + server.output());
        long firstMillis = first.get();
        // A quarantine would wait out a whole --worker-lease-ttl (30 s) after the claim; the
        // bound leaves a loaded machine room and still tells the two apart.
        assertTrue(
            firstMillis < 15_000,
            "round "
                + round
                + ": the first snowflake ID came "
                + firstMillis
                + " ms after SERVING (no earlier holder to wait out):\n"
                + server.output());
        System.out.println(
            "[leaf-tests] round "
                + round
                + ": first snowflake ID "
                + firstMillis
                + " ms after SERVING");
        stop(server, channel);
      }
    }
  }
}
