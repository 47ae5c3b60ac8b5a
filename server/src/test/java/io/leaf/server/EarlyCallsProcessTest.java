package io.leaf.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.leaf.server.testing.Ports;
import io.leaf.server.testing.ServerProcess;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdRequest;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Calls sent from the moment of launch, on the embedded H2 with the ledger on: a call refused a
 * connection never reached the server; one that reached it succeeds, or ends DEADLINE_EXCEEDED only
 * after its whole deadline. Never a failure for being early.
 */
@Tag("slow")
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("EarlyCallsProcessTest")
class EarlyCallsProcessTest {

  private static final int LAUNCHES = 4;
  private static final int CALLERS = 8;
  private static final long DEADLINE_MS = 20_000;

  @TempDir Path dir;

  /** Polls the port's TCP connect (not a fixed sleep) until it accepts, at most {@code ms}. */
  private static boolean awaitPort(int port, long ms) throws Exception {
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
    while (System.nanoTime() < until) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return true;
      } catch (java.io.IOException refused) {
        Thread.onSpinWait();
      }
    }
    return false;
  }

  @Test
  @Timeout(600)
  void launch_callsFromTheFirstMoment_noneFailsForBeingEarly() throws Exception {
    List<String> failures = Collections.synchronizedList(new ArrayList<>());
    String url = "jdbc:h2:file:" + dir.resolve("leaf").toAbsolutePath() + ";MODE=MySQL";
    // A database that holds a tag already, as after a restart: its first calls load segments
    // (a take and its ledger record) while the start-up checks may still run.
    try (ServerProcess first = ServerProcess.start("--port", "0", "--db-url", url)) {
      assertTrue(first.awaitLine("Leaf listening", 120, TimeUnit.SECONDS), first.output());
      java.util.regex.Matcher m =
          java.util.regex.Pattern.compile("listening on port (\\d+)").matcher(first.output());
      assertTrue(m.find(), first.output());
      ManagedChannel channel =
          ManagedChannelBuilder.forAddress("127.0.0.1", Integer.parseInt(m.group(1)))
              .usePlaintext()
              .build();
      LeafServiceGrpc.newBlockingStub(channel)
          .withDeadlineAfter(60, TimeUnit.SECONDS)
          .createTag(CreateTagRequest.newBuilder().setBizTag("kept").setStep(10).build());
      channel.shutdownNow();
      first.signal("TERM");
      assertTrue(first.awaitExit(60, TimeUnit.SECONDS) != null, first.output());
    }
    for (int launch = 1; launch <= LAUNCHES; launch++) {
      int port = Ports.free();
      try (ServerProcess server =
          ServerProcess.start("--port", String.valueOf(port), "--db-url", url)) {
        assertTrue(awaitPort(port, 120_000), "the port opened:\n" + server.output());
        ManagedChannel channel =
            ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
        ExecutorService callers = Executors.newFixedThreadPool(CALLERS);
        try {
          String tag = "early" + launch;
          List<Future<?>> done = new ArrayList<>();
          // The first call of every caller arrives as the port opens: one creates a tag, the
          // others ask for IDs of the tag the database holds (each tag a segment of 10, so the
          // calls keep loading segments).
          for (int c = 0; c < CALLERS; c++) {
            boolean creator = c == 0;
            done.add(
                callers.submit(
                    () -> {
                      // A CreateTag that ran out its deadline (held while the checks ran) is asked
                      // again
                      // before its tag's IDs are.
                      boolean created = !creator;
                      for (int i = 0; i < 20; i++) {
                        boolean ok = call(channel, !created, creator ? tag : "kept", failures);
                        created |= ok;
                      }
                      return null;
                    }));
          }
          for (Future<?> f : done) {
            f.get(5, TimeUnit.MINUTES);
          }
          assertTrue(
              io.leaf.server.testing.Poll.until(
                  () -> {
                    try {
                      return LeafServiceGrpc.newBlockingStub(channel)
                              .withDeadlineAfter(DEADLINE_MS, TimeUnit.MILLISECONDS)
                              .nextId(NextIdRequest.newBuilder().setBizTag(tag).build())
                              .getId()
                          > 0;
                    } catch (StatusRuntimeException e) {
                      return false;
                    }
                  },
                  java.time.Duration.ofSeconds(60)),
              "the tag created early serves: " + failures + "\n" + server.output());
        } finally {
          callers.shutdownNow();
          channel.shutdownNow();
        }
        System.out.println("[leaf-tests] launch " + launch + ": failures so far " + failures);
      }
    }
    assertEquals(List.of(), failures, "no call fails for arriving early");
  }

  /**
   * @return whether the call succeeded (a CreateTag: or found the tag there already)
   */
  private static boolean call(
      ManagedChannel channel, boolean create, String tag, List<String> failures) {
    long started = System.nanoTime();
    var stub =
        LeafServiceGrpc.newBlockingStub(channel)
            .withDeadlineAfter(DEADLINE_MS, TimeUnit.MILLISECONDS);
    try {
      if (create) {
        stub.createTag(CreateTagRequest.newBuilder().setBizTag(tag).setStep(100).build());
      } else {
        stub.nextId(NextIdRequest.newBuilder().setBizTag(tag).build());
      }
      return true;
    } catch (StatusRuntimeException e) {
      long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      Status s = e.getStatus();
      boolean fullDeadline =
          s.getCode() == Status.Code.DEADLINE_EXCEEDED && tookMs >= DEADLINE_MS - 50;
      if (create && s.getCode() == Status.Code.ALREADY_EXISTS) {
        return true; // an earlier CreateTag that ran out its deadline committed
      }
      if (!fullDeadline) {
        failures.add((create ? "CreateTag" : "NextId") + " after " + tookMs + " ms: " + s);
      }
      return false;
    }
  }
}
