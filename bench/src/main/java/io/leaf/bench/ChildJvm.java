package io.leaf.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a main class of this module in a new JVM (the same {@code java}, the same class path):
 * forwards its progress lines and collects its {@link ResultLine}s.
 */
final class ChildJvm {

  private ChildJvm() {}

  /** The {@code java} running this JVM. */
  static String javaCommand() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /**
   * @throws IllegalStateException the child exited with a failure or ran past {@code
   *     timeoutSeconds}
   */
  static List<Map<String, String>> run(
      List<String> jvmArgs, Class<?> main, List<String> args, long timeoutSeconds)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(javaCommand());
    command.addAll(jvmArgs);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(args);
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    List<Map<String, String>> results = Collections.synchronizedList(new ArrayList<>());
    Thread reader = new Thread(() -> forward(process, results), main.getSimpleName() + "-output");
    reader.start();
    if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
      reader.join();
      throw new IllegalStateException(
          main.getSimpleName() + " still running after " + timeoutSeconds + " s; stopped it");
    }
    reader.join();
    if (process.exitValue() != 0) {
      throw new IllegalStateException(
          main.getSimpleName()
              + " failed with exit code "
              + process.exitValue()
              + " (its output is above)");
    }
    return List.copyOf(results);
  }

  private static void forward(Process process, List<Map<String, String>> results) {
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        if (ResultLine.isResult(line)) {
          results.add(ResultLine.parse(line));
        } else {
          System.out.println("  " + line);
        }
      }
    } catch (IOException e) {
      // The stream closes when the child dies; its exit code tells what happened.
    }
  }
}
