package io.leaf.bench;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.leaf.v1.LeafServiceGrpc;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The production server ({@code io.leaf.server.Main}) in a child JVM on this JVM's class path with
 * a strict tag's flags, to be killed -9: started SERVING, its output discarded.
 */
final class ServerChild implements AutoCloseable {

  final int port;
  private final Process process;
  private final ManagedChannel channel;

  private ServerChild(int port, Process process) {
    this.port = port;
    this.process = process;
    this.channel = OrderingRows.channel(port);
  }

  static ServerChild start(String dbUrl, Duration tagLeaseTtl) throws Exception {
    int port = freePort();
    List<String> command =
        List.of(
            ChildJvm.javaCommand(),
            "-cp",
            System.getProperty("java.class.path"),
            "io.leaf.server.Main",
            "--port",
            Integer.toString(port),
            "--db-url",
            dbUrl,
            "--advertise-address",
            "127.0.0.1:" + port,
            "--tag-lease-ttl",
            tagLeaseTtl.toSeconds() + "s");
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD);
    ServerChild child = new ServerChild(port, builder.start());
    try {
      child.awaitServing(Duration.ofSeconds(120));
    } catch (Exception e) {
      child.close();
      throw e;
    }
    return child;
  }

  LeafServiceGrpc.LeafServiceBlockingStub stub() {
    return LeafServiceGrpc.newBlockingStub(channel);
  }

  /** SIGKILL: no shutdown hook, no hand-back, no release. */
  void kill() throws InterruptedException {
    process.destroyForcibly().waitFor();
  }

  private void awaitServing(Duration within) throws InterruptedException {
    long until = System.nanoTime() + within.toNanos();
    while (System.nanoTime() - until < 0) {
      if (!process.isAlive()) {
        throw new IllegalStateException("the server exited with " + process.exitValue());
      }
      try {
        if (HealthGrpc.newBlockingStub(channel)
                .withDeadlineAfter(1, TimeUnit.SECONDS)
                .check(HealthCheckRequest.getDefaultInstance())
                .getStatus()
            == ServingStatus.SERVING) {
          return;
        }
      } catch (StatusRuntimeException notYet) {
        // not listening yet
      }
      Thread.sleep(50); // a poll's interval
    }
    throw new IllegalStateException("the server was not SERVING within " + within);
  }

  @Override
  public void close() throws InterruptedException {
    channel.shutdownNow();
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress("127.0.0.1", 0));
      return s.getLocalPort();
    }
  }
}
