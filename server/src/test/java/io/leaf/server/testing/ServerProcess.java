package io.leaf.server.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code LeafServer.main} in a child JVM on the classes just compiled ({@link ChildJvm}), as {@code
 * java -jar} runs it: its exit code and every line it wrote to stdout and stderr. {@link #close()}
 * kills it.
 */
public final class ServerProcess implements AutoCloseable {

  private final Process process;
  private final List<String> lines = new ArrayList<>();
  private final Thread reader;

  private ServerProcess(Process process) {
    this.process = process;
    this.reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                  synchronized (lines) {
                    lines.add(line);
                    lines.notifyAll();
                  }
                }
              } catch (IOException e) {
                // The process was killed; the lines read so far stay.
              }
            },
            "server-process-output");
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts the server with {@code args}, logging through the production {@code logback.xml} (the
   * test classpath would otherwise pick the quieter {@code logback-test.xml}).
   */
  public static ServerProcess start(String... args) throws IOException {
    return start(Map.of(), args);
  }

  /** {@link #start(String...)} with {@code env} added to the child's environment. */
  public static ServerProcess start(Map<String, String> env, String... args) throws IOException {
    return start(List.of(), env, args);
  }

  /** {@link #start(Map, String...)} with {@code jvmOptions} (such as {@code -Xmx256m}). */
  public static ServerProcess start(
      List<String> jvmOptions, Map<String, String> env, String... args) throws IOException {
    return startWithin(List.of(), jvmOptions, env, args);
  }

  /**
   * {@link #start(List, Map, String...)} under {@code prefix}, a command that runs the rest in
   * place, such as {@code ip netns exec NAME} ({@link #pid()} is then the server's).
   */
  public static ServerProcess startWithin(
      List<String> prefix, List<String> jvmOptions, Map<String, String> env, String... args)
      throws IOException {
    ChildJvm jvm = ChildJvm.get();
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Path logback = Path.of("target", "classes", "logback.xml").toAbsolutePath();
    List<String> command = new ArrayList<>(prefix);
    command.add(java.toString());
    command.addAll(jvm.options());
    command.addAll(jvmOptions);
    command.addAll(
        List.of(
            "-cp",
            jvm.classPath(),
            "-Dlogback.configurationFile=" + logback,
            "io.leaf.server.Main"));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().putAll(env);
    return new ServerProcess(builder.start());
  }

  /** Waits until a line contains {@code text}; false when the process ended or time ran out. */
  public boolean awaitLine(String text, long timeout, TimeUnit unit) throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    synchronized (lines) {
      while (lines.stream().noneMatch(l -> l.contains(text))) {
        long left = deadline - System.nanoTime();
        if (left <= 0 || (!process.isAlive() && !reader.isAlive())) {
          return false;
        }
        lines.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 100)));
      }
      return true;
    }
  }

  /** The exit code, or null when the process is still running after {@code timeout}. */
  public Integer awaitExit(long timeout, TimeUnit unit) throws InterruptedException {
    if (!process.waitFor(timeout, unit)) {
      return null;
    }
    reader.join(TimeUnit.SECONDS.toMillis(10));
    return process.exitValue();
  }

  /** The child's process ID (for signals such as {@code kill -STOP}). */
  public long pid() {
    return process.pid();
  }

  /** Sends {@code kill -SIGNAL} to the child, e.g. {@code "STOP"}, {@code "CONT"}, {@code "9"}. */
  public void signal(String signal) throws IOException, InterruptedException {
    int exit =
        new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
            .inheritIO()
            .start()
            .waitFor();
    if (exit != 0) {
      throw new IOException("kill -" + signal + " " + process.pid() + " exited " + exit);
    }
  }

  /** Every line so far. */
  public List<String> lines() {
    synchronized (lines) {
      return List.copyOf(lines);
    }
  }

  /** The output so far, for assertion messages. */
  public String output() {
    return String.join("\n", lines());
  }

  @Override
  public void close() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }
}
