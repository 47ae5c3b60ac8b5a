package io.leaf.bench;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * HTTP/1.1 load from wrk (a C load generator), when it is installed: keep-alive connections, each
 * with one request in flight, as Meituan Leaf's HTTP clients call {@code /api/segment/get/{key}}.
 */
final class Wrk {

  /** What one wrk run reported: requests per second, requests done, non-2xx answers. */
  record Run(double requestsPerSecond, long requests, long failed) {}

  private static final Pattern RATE = Pattern.compile("Requests/sec:\\s+([0-9.]+)");
  private static final Pattern TOTAL = Pattern.compile("(\\d+) requests in ");
  private static final Pattern FAILED = Pattern.compile("Non-2xx or 3xx responses: (\\d+)");

  private final Path executable;

  private Wrk(Path executable) {
    this.executable = executable;
  }

  /** The wrk on the PATH, if any. */
  static Optional<Wrk> find() {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path candidate = Path.of(dir, "wrk");
      if (Files.isExecutable(candidate)) {
        return Optional.of(new Wrk(candidate));
      }
    }
    return Optional.empty();
  }

  /** GETs {@code url} for {@code duration} over {@code connections} connections, one thread. */
  Run run(String url, Duration duration, int connections) throws IOException, InterruptedException {
    List<String> command =
        List.of(
            executable.toString(),
            "-t",
            "1",
            "-c",
            Integer.toString(connections),
            "-d",
            Math.max(1, duration.toSeconds()) + "s",
            url);
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    byte[] output = process.getInputStream().readAllBytes();
    long limit = duration.toSeconds() + 60;
    if (!process.waitFor(limit, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IOException("wrk did not finish within " + limit + " s");
    }
    return parse(new String(output, StandardCharsets.UTF_8));
  }

  static Run parse(String output) {
    Matcher rate = RATE.matcher(output);
    Matcher total = TOTAL.matcher(output);
    if (!rate.find() || !total.find()) {
      throw new IllegalStateException("unexpected wrk output:\n" + output);
    }
    Matcher failed = FAILED.matcher(output);
    return new Run(
        Double.parseDouble(rate.group(1)),
        Long.parseLong(total.group(1)),
        failed.find() ? Long.parseLong(failed.group(1)) : 0);
  }

  String describe() {
    return executable.toString();
  }
}
