package example.mybatis;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The packaged Leaf server ({@code server/target/leaf-server.jar}) started on a free loopback
 * port with a file-backed H2 database in a temporary directory; {@link #close()} stops it and
 * deletes the database.
 */
final class LeafServerProcess implements AutoCloseable {

  static final String ADMIN_TOKEN = "example-admin-token";

  private final Path dataDir;
  private final Path log;
  private final Process process;
  private final int port;

  LeafServerProcess() throws Exception {
    Path jar = Paths.get(System.getProperty("leaf.server.jar", "../../server/target/leaf-server.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(jar.toAbsolutePath() + " is missing: build it first with"
          + " `make build` (or `mvn install`) at the project root");
    }
    dataDir = Files.createTempDirectory("leaf-spring-boot-example-");
    log = dataDir.resolve("server.log");
    port = freePort();
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    process = new ProcessBuilder(java, "-jar", jar.toString(), "--port", String.valueOf(port),
        "--db-url", "jdbc:h2:file:" + dataDir.resolve("leaf") + ";MODE=MySQL",
        "--admin-token", ADMIN_TOKEN)
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    awaitServing();
  }

  String target() {
    return "127.0.0.1:" + port;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** Polls the standard health check until SERVING, up to 60 s. */
  private void awaitServing() throws Exception {
    ManagedChannel channel = ManagedChannelBuilder.forTarget(target()).usePlaintext().build();
    try {
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (System.nanoTime() < end) {
        if (!process.isAlive()) {
          throw new IllegalStateException("the Leaf server exited with " + process.exitValue()
              + ":\n" + Files.readString(log));
        }
        try {
          ServingStatus s = HealthGrpc.newBlockingStub(channel)
              .withDeadlineAfter(2, TimeUnit.SECONDS)
              .check(HealthCheckRequest.newBuilder().setService("leaf.v1.LeafService").build())
              .getStatus();
          if (s == ServingStatus.SERVING) {
            return;
          }
        } catch (StatusRuntimeException notYet) {
          // not listening yet
        }
        Thread.sleep(200);
      }
      throw new IllegalStateException("the Leaf server is not SERVING after 60 s:\n"
          + Files.readString(log));
    } finally {
      channel.shutdownNow();
    }
  }

  /** Stops the server (SIGTERM, then SIGKILL after 15 s) and deletes its database. */
  @Override
  public void close() throws Exception {
    process.destroy();
    if (!process.waitFor(15, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
    }
    try (Stream<Path> files = Files.walk(dataDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
