package io.leaf.server.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.leaf.v1.LeafServiceGrpc;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One packaged-server process on a test database and a plaintext channel to it, for the tests that
 * kill (-9) or stop (SIGTERM) servers under load and start new ones.
 */
public final class ServerNode {

  private static final Pattern LISTENING = Pattern.compile("Leaf listening on port (\\d+)");

  public final ServerProcess process;
  public final ManagedChannel channel;

  /**
   * Starts a server on {@code db} (pool of 2) with {@code flags} added, and waits until it listens.
   */
  public ServerNode(TestDatabase db, String... flags) throws Exception {
    this(db.url, db.user, db.password, flags);
  }

  /**
   * {@link #ServerNode(TestDatabase, String...)} reaching {@code db} at {@code url} (a proxy's).
   */
  public static ServerNode via(String url, TestDatabase db, String... flags) throws Exception {
    return new ServerNode(url, db.user, db.password, flags);
  }

  /** A server on the database at {@code url} (a cluster's), as {@link #via} starts one. */
  public static ServerNode at(String url, String user, String password, String... flags)
      throws Exception {
    return new ServerNode(url, user, password, flags);
  }

  private ServerNode(String url, String user, String password, String[] flags) throws Exception {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--port",
                "0",
                "--db-url",
                url,
                "--db-user",
                user,
                "--db-password",
                password,
                "--db-pool-size",
                "2"));
    args.addAll(List.of(flags));
    process = ServerProcess.start(args.toArray(String[]::new));
    assertTrue(
        process.awaitLine("Leaf listening", 90, TimeUnit.SECONDS),
        "the server started:\n" + process.output());
    Matcher m = LISTENING.matcher(process.output());
    assertTrue(m.find(), process.output());
    channel =
        ManagedChannelBuilder.forAddress("127.0.0.1", Integer.parseInt(m.group(1)))
            .usePlaintext()
            .build();
  }

  /** A stub whose calls wait at most {@code seconds}. */
  public LeafServiceGrpc.LeafServiceBlockingStub stub(long seconds) {
    return LeafServiceGrpc.newBlockingStub(channel).withDeadlineAfter(seconds, TimeUnit.SECONDS);
  }

  /** kill -9 ({@code destroyForcibly} is SIGKILL on Linux: nothing of the server runs after it). */
  public void kill() throws InterruptedException {
    channel.shutdownNow();
    process.close();
  }

  /** SIGTERM, and the exit within 30 s. */
  public void stop() throws Exception {
    process.signal("TERM");
    Integer exit = process.awaitExit(30, TimeUnit.SECONDS);
    channel.shutdownNow();
    assertTrue(exit != null, "stopped within 30 s:\n" + process.output());
  }
}
