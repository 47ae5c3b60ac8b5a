package io.leaf.server.grpc;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.leaf.server.testing.Poll;
import io.leaf.server.testing.Ports;
import io.leaf.server.testing.ServerProcess;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.IdBatch;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A server with a 256 MB heap and --max-streams streams of the largest chunks, none of them read:
 * no OutOfMemoryError, and every stream slot is free again after the streams are cancelled, round
 * after round.
 */
@Tag("slow")
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("UnreadStreamsMemoryTest")
class UnreadStreamsMemoryTest {

  private static final int STREAMS = 256;
  private static final int ROUNDS = 3;
  private static final Pattern PORT = Pattern.compile("Leaf listening on port (\\d+)");
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir Path dir;

  @Test
  @Timeout(300)
  void unreadMaxChunkStreams_smallHeap_noOutOfMemoryAndAllSlotsFreeAfterCancel() throws Exception {
    int httpPort = Ports.free();
    try (ServerProcess server =
        ServerProcess.start(
            List.of("-Xmx256m"),
            Map.of(),
            "--port",
            "0",
            "--db-url",
            "jdbc:h2:file:" + dir.resolve("leaf") + ";MODE=MySQL",
            "--max-wait",
            "60s",
            "--http-port",
            Integer.toString(httpPort))) {
      assertTrue(server.awaitLine("Leaf listening", 60, TimeUnit.SECONDS), server.output());
      Matcher m = PORT.matcher(server.output());
      assertTrue(m.find());
      ManagedChannel channel =
          NettyChannelBuilder.forAddress("127.0.0.1", Integer.parseInt(m.group(1)))
              .usePlaintext()
              .flowControlWindow(65_535)
              .build();
      try {
        LeafServiceGrpc.LeafServiceBlockingStub stub =
            LeafServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
        // IDs near 2^62 take 9 bytes each on the wire.
        stub.createTag(
            CreateTagRequest.newBuilder()
                .setBizTag("wide")
                .setMaxId(1L << 62)
                .setStep(1_000_000)
                .build());
        long rssPeak = 0;
        for (int round = 1; round <= ROUNDS; round++) {
          Queue<Status> closed = new ConcurrentLinkedQueue<>();
          List<ClientCall<NextIdBatchRequest, IdBatch>> calls = new ArrayList<>();
          for (int i = 0; i < STREAMS; i++) {
            calls.add(openUnread(channel, closed));
          }
          // The server sends what the budget lets it, and nobody reads: wait until it holds all
          // it can, its stream memory in use the same for half a second.
          long[] last = {-1, 0};
          assertTrue(
              Poll.until(
                  () -> {
                    long used = inUse(httpPort, "--max-stream-memory");
                    if (used <= 0 || used != last[0]) {
                      last[0] = used;
                      last[1] = System.nanoTime();
                      return false;
                    }
                    return System.nanoTime() - last[1] > TimeUnit.MILLISECONDS.toNanos(500);
                  },
                  Duration.ofSeconds(60)),
              "round " + round + ": the streams filled their memory");
          rssPeak = Math.max(rssPeak, rssKb(server.pid()));
          assertTrue(closed.isEmpty(), "round " + round + ": streams ended early: " + closed);
          Queue<Status> extra = new ConcurrentLinkedQueue<>();
          openUnread(channel, extra);
          Poll.until(() -> !extra.isEmpty(), Duration.ofSeconds(30));
          Status refused = extra.peek();
          assertTrue(
              refused != null
                  && refused.getCode() == Status.Code.RESOURCE_EXHAUSTED
                  && refused.getDescription().contains("--max-streams"),
              "round " + round + ": stream " + (STREAMS + 1) + " is refused: " + refused);
          calls.forEach(c -> c.cancel("done", null));
          // A unary call on the same server still answers while and after the streams end.
          assertTrue(stub.nextId(NextIdRequest.newBuilder().setBizTag("wide").build()).getId() > 0);
          assertTrue(
              Poll.until(
                  () ->
                      inUse(httpPort, "--max-streams") == 0
                          && inUse(httpPort, "--max-stream-memory") == 0,
                  Duration.ofSeconds(30)),
              "round " + round + ": every stream slot and its memory free after the cancel");
        }
        String log = server.output();
        assertFalse(log.contains("OutOfMemoryError"), "the server ran out of memory:\n" + log);
        System.out.println(
            "[leaf-tests] "
                + STREAMS
                + " unread streams of 100,000-ID chunks at"
                + " -Xmx256m, "
                + ROUNDS
                + " rounds: peak RSS "
                + rssPeak / 1024
                + " MB");
      } finally {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
    }
  }

  private static ClientCall<NextIdBatchRequest, IdBatch> openUnread(
      ManagedChannel channel, Queue<Status> closed) {
    ClientCall<NextIdBatchRequest, IdBatch> call =
        channel.newCall(LeafServiceGrpc.getNextIdBatchMethod(), CallOptions.DEFAULT);
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onClose(Status status, Metadata trailers) {
            if (status.getCode() != Status.Code.CANCELLED) {
              closed.add(status);
            }
          }
        },
        new Metadata());
    // Never call.request(n): the client reads nothing.
    call.sendMessage(
        NextIdBatchRequest.newBuilder()
            .setBizTag("wide")
            .setCount(10_000_000)
            .setChunkSize(100_000)
            .build());
    call.halfClose();
    return call;
  }

  /** What the monitor JSON reports in use for {@code flag}; -1 when it cannot be read. */
  private static long inUse(int httpPort, String flag) {
    try {
      String json =
          HTTP.send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + httpPort + "/api/monitor.json"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      Matcher m =
          Pattern.compile(
                  "\\{\"flag\":\"" + Pattern.quote(flag) + "\",\"limit\":\\d+,\"inUse\":(\\d+)")
              .matcher(json);
      return m.find() ? Long.parseLong(m.group(1)) : -1;
    } catch (Exception e) {
      return -1;
    }
  }

  private static long rssKb(long pid) throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return 0;
  }
}
