package io.leaf.mybatis;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The packaged Leaf server ({@code server/target/leaf-server.jar}, or the {@code leaf.server.jar}
 * property) in a child process on a free port, with an H2 database in a temporary directory; ready
 * once it prints its "listening" line; {@link #close()} stops it and removes the directory.
 */
final class PackagedLeafServer implements AutoCloseable {

  private final Process process;
  private final Path dir;
  private final StringBuffer output = new StringBuffer();
  private final int port;

  PackagedLeafServer() throws Exception {
    Path jar = Path.of(System.getProperty("leaf.server.jar", "../server/target/leaf-server.jar"));
    assertTrue(
        Files.isRegularFile(jar),
        jar.toAbsolutePath()
            + " is missing: build it with "
            + "mvn -pl server -am package -DskipTests");
    dir = Files.createTempDirectory("leaf-mybatis-");
    try (ServerSocket probe = new ServerSocket(0)) {
      port = probe.getLocalPort();
    }
    process =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                jar.toString(),
                "--port",
                String.valueOf(port),
                "--db-url",
                "jdbc:h2:file:" + dir.resolve("leaf") + ";MODE=MySQL",
                // a claimed worker ID issues snowflake IDs after the lease TTL plus 1 s: keep that
                // short
                "--worker-lease-ttl",
                "1s")
            .redirectErrorStream(true)
            .start();
    CompletableFuture<Void> listening = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                  output.append(line).append('\n');
                  if (line.contains("Leaf listening on port")) {
                    listening.complete(null);
                  }
                }
                listening.completeExceptionally(
                    new IllegalStateException("server exited:\n" + output));
              } catch (IOException e) {
                listening.completeExceptionally(e);
              }
            },
            "leaf-server-output");
    reader.setDaemon(true);
    reader.start();
    try {
      listening.get(90, TimeUnit.SECONDS);
    } catch (Exception e) {
      close();
      throw new IllegalStateException("the Leaf server did not start:\n" + output, e);
    }
  }

  String target() {
    return "127.0.0.1:" + port;
  }

  @Override
  public void close() throws IOException {
    process.destroy();
    try {
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(15, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
