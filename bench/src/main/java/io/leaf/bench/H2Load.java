package io.leaf.bench;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Unary gRPC load from h2load (nghttp2's C load generator), when it is installed: a client that
 * shares no runtime with the server, each call one POST of a length-prefixed protobuf message.
 *
 * <p>h2load counts HTTP statuses only, and gRPC reports failures in trailers after an HTTP 200, so
 * callers check the calls' effect on the server (IDs consumed) before trusting the figure.
 */
final class H2Load {

  /** What one h2load run reported. */
  record Run(double requestsPerSecond, long succeeded, long failed) {}

  private static final Pattern RATE = Pattern.compile("finished in [^,]+, ([0-9.]+) req/s");
  private static final Pattern COUNTS =
      Pattern.compile(
          "requests: \\d+ total, \\d+ started, \\d+ done, (\\d+) succeeded, (\\d+) failed");

  private final Path executable;

  private H2Load(Path executable) {
    this.executable = executable;
  }

  /** The h2load on the PATH, if any. */
  static Optional<H2Load> find() {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path candidate = Path.of(dir, "h2load");
      if (Files.isExecutable(candidate)) {
        return Optional.of(new H2Load(candidate));
      }
    }
    return Optional.empty();
  }

  /** The gRPC wire form of one uncompressed message: flag byte, 4-byte length, the message. */
  static byte[] grpcFrame(byte[] message) {
    return ByteBuffer.allocate(5 + message.length)
        .put((byte) 0)
        .putInt(message.length)
        .put(message)
        .array();
  }

  /**
   * Calls {@code fullMethod} (e.g. {@code leaf.v1.LeafService/NextId}) on 127.0.0.1:{@code port}
   * for {@code duration} with {@code connections × streams} calls in flight.
   */
  Run run(
      int port, String fullMethod, byte[] message, Duration duration, int connections, int streams)
      throws IOException, InterruptedException {
    return run(port, fullMethod, message, duration, connections, streams, List.of());
  }

  /** {@link #run} with extra request headers ({@code "authorization: Bearer …"}). */
  Run run(
      int port,
      String fullMethod,
      byte[] message,
      Duration duration,
      int connections,
      int streams,
      List<String> headers)
      throws IOException, InterruptedException {
    Path body = Files.createTempFile("leaf-h2load-", ".bin");
    try {
      Files.write(body, grpcFrame(message));
      List<String> command =
          new ArrayList<>(
              List.of(
                  executable.toString(),
                  "-D",
                  duration.toMillis() + "ms",
                  "-c",
                  Integer.toString(connections),
                  "-m",
                  Integer.toString(streams),
                  "-t",
                  "1",
                  "-H",
                  "content-type: application/grpc",
                  "-H",
                  "te: trailers",
                  "-d",
                  body.toString()));
      for (String header : headers) {
        command.add("-H");
        command.add(header);
      }
      command.add("http://127.0.0.1:" + port + "/" + fullMethod);
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      byte[] output = process.getInputStream().readAllBytes();
      long limit = duration.toSeconds() + 60;
      if (!process.waitFor(limit, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IOException("h2load did not finish within " + limit + " s");
      }
      return parse(new String(output, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(body);
    }
  }

  static Run parse(String output) {
    Matcher rate = RATE.matcher(output);
    Matcher counts = COUNTS.matcher(output);
    if (!rate.find() || !counts.find()) {
      throw new IllegalStateException("unexpected h2load output:\n" + output);
    }
    return new Run(
        Double.parseDouble(rate.group(1)),
        Long.parseLong(counts.group(1)),
        Long.parseLong(counts.group(2)));
  }

  String describe() {
    return executable.toString();
  }
}
