package io.leaf.server.testing;

import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.Ordering;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Server processes that forward STRICT tags' calls to each other: each on a free port it advertises
 * as {@code 127.0.0.1:PORT}, with one {@code --tag-lease-ttl}. {@link #close()} kills them.
 */
public final class StrictFleet implements AutoCloseable {

  public final List<ServerNode> nodes = new ArrayList<>();

  /** What each server advertises, by index: GetTag's {@code owner} names one of them. */
  public final List<String> addresses = new ArrayList<>();

  /**
   * Starts {@code count} servers, server {@code i} on the database at {@code url.apply(i)}; a
   * server that fails to start kills those started.
   */
  public StrictFleet(
      int count, IntFunction<String> url, String user, String password, long tagLeaseTtlMs)
      throws Exception {
    try {
      for (int i = 0; i < count; i++) {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
          port = s.getLocalPort();
        }
        addresses.add("127.0.0.1:" + port);
        nodes.add(
            ServerNode.at(
                url.apply(i),
                user,
                password,
                "--port",
                Integer.toString(port),
                "--advertise-address",
                "127.0.0.1:" + port,
                "--tag-lease-ttl",
                tagLeaseTtlMs + "ms"));
      }
    } catch (Exception | Error e) {
      close();
      throw e;
    }
  }

  /** {@code count} servers on {@code db}. */
  public static StrictFleet on(TestDatabase db, int count, long tagLeaseTtlMs) throws Exception {
    return new StrictFleet(count, i -> db.url, db.user, db.password, tagLeaseTtlMs);
  }

  /** Creates {@code tag} as STRICT with {@code step}, through the first server. */
  public void createStrict(String tag, int step) {
    CreateTagRequest.Builder req =
        CreateTagRequest.newBuilder().setBizTag(tag).setOrdering(Ordering.STRICT);
    if (step > 0) {
      req.setStep(step);
    }
    nodes.get(0).stub(30).createTag(req.build());
  }

  @Override
  public void close() throws InterruptedException {
    for (ServerNode n : nodes) {
      if (ProcessHandle.of(n.process.pid()).map(ProcessHandle::isAlive).orElse(false)) {
        try {
          n.process.signal("CONT"); // a SIGSTOPped one too
        } catch (Exception ignored) {
          // gone meanwhile
        }
      }
      n.kill();
    }
  }
}
