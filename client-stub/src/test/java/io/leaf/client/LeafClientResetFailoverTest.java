package io.leaf.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two real servers on TCP: the first sits behind a proxy that resets the client's connection while
 * the first server holds a NextId call (as a server killed mid-call does); the call is answered by
 * the second server within its deadline, never failed. (A reset seen while reading is UNAVAILABLE;
 * the UNKNOWN "channel closed" of a write that races the close is in LeafClientFailoverTest.)
 */
class LeafClientResetFailoverTest {

  private static final long SECOND_REGION = 1L << 62;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final List<AutoCloseable> closing = new CopyOnWriteArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
    threads.shutdownNow();
  }

  /** A server of {@code service} on a free loopback port; {@code arrived} counts its calls. */
  private Server serve(FakeLeafService service, CountDownLatch arrived) throws IOException {
    ServerInterceptor count =
        new ServerInterceptor() {
          @Override
          public <Q, R> ServerCall.Listener<Q> interceptCall(
              ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
            arrived.countDown();
            return next.startCall(call, headers);
          }
        };
    Server s =
        Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
            .addService(ServerInterceptors.intercept(service, count))
            .build()
            .start();
    closing.add(() -> s.shutdownNow().awaitTermination(5, TimeUnit.SECONDS));
    return s;
  }

  @Test
  @Timeout(60)
  void connectionResetMidCall_callAnsweredBySecondServer() throws Exception {
    FakeLeafService near = new FakeLeafService();
    FakeLeafService far = new FakeLeafService(SECOND_REGION);
    closing.add(far);
    closing.add(near);
    closing.add(near::release);
    CountDownLatch nearCalled = new CountDownLatch(1);
    Server nearServer = serve(near, nearCalled);
    Server farServer = serve(far, new CountDownLatch(1));
    ResetProxy proxy = new ResetProxy(nearServer.getPort());
    closing.add(proxy);
    LeafClient client =
        LeafClient.forTargets(
                List.of("127.0.0.1:" + proxy.port(), "127.0.0.1:" + farServer.getPort()))
            .usePlaintext()
            .maxAttempts(1)
            .deadline(Duration.ofSeconds(30))
            .failoverAfter(Duration.ofSeconds(20))
            .build();
    closing.add(0, client);

    near.block();
    Future<Long> id = threads.submit(() -> client.nextId("t"));
    assertTrue(nearCalled.await(20, TimeUnit.SECONDS), "the first server holds the call");
    proxy.reset();

    long started = System.nanoTime();
    assertEquals(SECOND_REGION, id.get(25, TimeUnit.SECONDS), "answered by the second server");
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    assertTrue(ms < 10_000, "moved on at the reset, not after failoverAfter (20 s): " + ms);
    assertEquals(1, far.calls(), "one attempt on the second server");
  }

  /** Forwards loopback connections to a port; {@link #reset} ends them with a TCP reset. */
  private final class ResetProxy implements AutoCloseable {
    private final ServerSocket listening =
        new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    ResetProxy(int target) throws IOException {
      threads.submit(
          () -> {
            while (!listening.isClosed()) {
              Socket in = listening.accept();
              Socket out = new Socket(InetAddress.getLoopbackAddress(), target);
              sockets.add(in);
              sockets.add(out);
              threads.submit(() -> pump(in, out));
              threads.submit(() -> pump(out, in));
            }
            return null;
          });
    }

    int port() {
      return listening.getLocalPort();
    }

    private Void pump(Socket from, Socket to) {
      byte[] buf = new byte[8192];
      try (InputStream i = from.getInputStream()) {
        OutputStream o = to.getOutputStream();
        for (int n; (n = i.read(buf)) >= 0; ) {
          o.write(buf, 0, n);
          o.flush();
        }
      } catch (IOException e) {
        // The other side was reset or closed: so is this one.
      }
      return null;
    }

    /** Resets every connection (linger 0) and accepts no more, as a killed server's port does. */
    void reset() throws IOException {
      listening.close();
      for (Socket s : sockets) {
        if (!s.isClosed()) {
          s.setSoLinger(true, 0);
          s.close();
        }
      }
    }

    @Override
    public void close() throws IOException {
      reset();
    }
  }
}
