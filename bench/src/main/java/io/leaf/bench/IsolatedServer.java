package io.leaf.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A {@link StressServer} in a child JVM: its port, and its thread count and resident memory read
 * from {@code /proc} (Linux; -1 elsewhere).
 *
 * <p>Its output is forwarded, indented; an {@code OutOfMemoryError} in it is remembered. {@link
 * #close()} kills it.
 */
final class IsolatedServer implements AutoCloseable {

  private final Process process;
  private final CompletableFuture<Integer> port = new CompletableFuture<>();
  private volatile boolean outOfMemory;

  /**
   * @param classPath the server's class path (this JVM's, or another build's plus this module)
   * @param args {@link StressServer}'s arguments
   */
  IsolatedServer(List<String> jvmArgs, String classPath, List<String> args) throws IOException {
    this(jvmArgs, classPath, StressServer.class, args);
  }

  /**
   * @param main a server's main class that prints {@code LISTENING <port>} once serving
   */
  IsolatedServer(List<String> jvmArgs, String classPath, Class<?> main, List<String> args)
      throws IOException {
    List<String> command = new ArrayList<>(List.of(ChildJvm.javaCommand()));
    command.addAll(jvmArgs);
    command.addAll(List.of("-cp", classPath, main.getName()));
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    // Warnings only: INFO lines would drown the progress lines.
    builder.environment().put("LEAF_LOG_LEVEL", "WARN");
    process = builder.start();
    Thread reader = new Thread(this::forward, "isolated-server-output");
    reader.setDaemon(true);
    reader.start();
  }

  /** Waits for the server to listen. */
  int port() throws Exception {
    return port.get(60, TimeUnit.SECONDS);
  }

  /** The {@code Threads:} line of {@code /proc/<pid>/status}. */
  long threads() {
    return status("Threads:");
  }

  /** Resident memory in KiB ({@code VmRSS}). */
  long rssKib() {
    return status("VmRSS:");
  }

  boolean alive() {
    return process.isAlive();
  }

  boolean sawOutOfMemory() {
    return outOfMemory;
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  private long status(String field) {
    try {
      Path file = Path.of("/proc", Long.toString(process.pid()), "status");
      for (String line : Files.readAllLines(file)) {
        if (line.startsWith(field)) {
          return Long.parseLong(line.substring(field.length()).trim().split("\\s+")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux, or the process is gone
    }
    return -1;
  }

  private void forward() {
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        if (line.startsWith("LISTENING ")) {
          port.complete(Integer.parseInt(line.substring("LISTENING ".length()).trim()));
          continue;
        }
        if (line.contains("OutOfMemoryError")) {
          outOfMemory = true;
        }
        System.out.println("    server: " + line);
      }
    } catch (IOException | RuntimeException e) {
      // the stream closes when the process dies
    }
    port.completeExceptionally(new IllegalStateException("the server exited before listening"));
  }
}
