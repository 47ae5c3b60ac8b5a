package io.leaf.bench;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * P12: how long the packaged server takes from launch to SERVING on the embedded H2 (a new file
 * each launch), and what it holds once idle: resident memory and threads from {@code /proc}.
 *
 * <p>It launches the server as {@code make run} does, {@code java @scripts/run.jvm
 * -XX:SharedArchiveFile=server/target/leaf.jsa -jar server/target/leaf-server.jar}, and, launch for
 * launch beside it, without the class-data archive; without the packaged jar it launches {@code
 * io.leaf.server.Main} from this JVM's class path. The health channel is built and its classes
 * loaded before each launch, so the figure is the server's time, not this process's.
 */
final class StartupRows {

  /** How long the server idles after SERVING before its memory and threads are read. */
  private static final long IDLE_MS = 3_000;

  private static final long TIMEOUT_MS = 120_000;

  private final BenchOptions options;
  private final ResultsTable table;

  StartupRows(BenchOptions options, ResultsTable table) {
    this.options = options;
    this.table = table;
  }

  /** One launch: port open and SERVING after launch (ms), idle RSS (KiB) and threads. */
  record Launch(double portMs, double servingMs, double rssKib, double threads) {}

  /** The packaged jar and archive, relative to the working directory as in the Makefile. */
  private static final Path JAR = Path.of("server", "target", "leaf-server.jar");

  private static final Path ARCHIVE = Path.of("server", "target", "leaf.jsa");

  /** {@code make run}'s JVM flags, a java @-file. */
  private static final Path RUN_FLAGS = Path.of("scripts", "run.jvm");

  void run(Path dir) throws Exception {
    boolean packaged = Files.isRegularFile(JAR);
    boolean archived = packaged && Files.isRegularFile(ARCHIVE);
    List<Launch> launches = new ArrayList<>();
    List<Launch> plain = new ArrayList<>();
    for (int round = 0; round < Math.max(3, options.rounds().count()); round++) {
      Progress.say("launch → SERVING on an H2 file, launch %d", round + 1);
      launches.add(launch(dir.resolve("start" + round), command(packaged, archived)));
      if (archived) {
        plain.add(launch(dir.resolve("plain" + round), command(true, false)));
      }
    }
    double port = Stats.median(launches.stream().map(Launch::portMs).toList());
    double serving = Stats.median(launches.stream().map(Launch::servingMs).toList());
    double rss = Stats.median(launches.stream().map(Launch::rssKib).toList());
    double threads = Stats.median(launches.stream().map(Launch::threads).toList());
    String how =
        archived
            ? "java @"
                + RUN_FLAGS
                + " -XX:SharedArchiveFile="
                + ARCHIVE
                + " -jar "
                + JAR
                + " (make run)"
            : packaged
                ? "java @" + RUN_FLAGS + " -jar " + JAR + " (no class-data archive)"
                : "io.leaf.server.Main";
    String without =
        archived
            ? String.format(
                Locale.ROOT,
                "; without the archive, launch for launch: SERVING %,.0f ms, RSS %,.0f MB",
                Stats.median(plain.stream().map(Launch::servingMs).toList()),
                Stats.median(plain.stream().map(Launch::rssKib).toList()) / 1024)
            : "";
    table.add(
        "P12 launch → SERVING, idle RSS, threads, on the embedded H2",
        how
            + " with the server's default flags on a new jdbc:h2:file each launch ("
            + launches.size()
            + " launches); RSS and threads read from /proc "
            + IDLE_MS
            + " ms after SERVING",
        String.format(
            Locale.ROOT,
            "SERVING %,.0f ms after launch (port open at %,.0f ms);"
                + " idle RSS %,.0f MB; %,.0f threads%s",
            serving,
            port,
            rss / 1024,
            threads,
            without),
        String.format(
            Locale.ROOT,
            "launch → SERVING = %.2f s (goal ≤ 1.5 s), RSS %.0f MB" + " (goal ≤ 150 MB)",
            serving / 1000,
            rss / 1024));
  }

  /** The server's command line without its flags. */
  private static List<String> command(boolean packaged, boolean archived) {
    List<String> command = new ArrayList<>(List.of(ChildJvm.javaCommand()));
    if (packaged) {
      command.add("@" + RUN_FLAGS);
    }
    if (archived) {
      command.add("-XX:SharedArchiveFile=" + ARCHIVE);
    }
    if (packaged) {
      command.addAll(List.of("-jar", JAR.toString()));
    } else {
      command.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.leaf.server.Main"));
    }
    return command;
  }

  private static Launch launch(Path db, List<String> java) throws Exception {
    int port = freePort();
    List<String> command = new ArrayList<>(java);
    command.addAll(
        List.of(
            "--port",
            Integer.toString(port),
            "--db-url",
            "jdbc:h2:file:" + db.toAbsolutePath() + ";MODE=MySQL"));
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD);
    ManagedChannel warmUp = channel(port);
    serving(warmUp); // loads this side's classes before the clock starts: nobody listens yet
    warmUp.shutdownNow();
    long launched = System.nanoTime();
    Process process = builder.start();
    try {
      long until = launched + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
      while (!accepts(port)) {
        check(process, until);
      }
      double portMs = millisSince(launched);
      // A new channel: the warm-up one backs off after its refused connection.
      ManagedChannel channel = channel(port);
      try {
        while (!serving(channel)) {
          check(process, until);
        }
        double servingMs = millisSince(launched);
        Thread.sleep(IDLE_MS); // the idle period measured, not a wait for a condition
        return new Launch(
            portMs, servingMs, status(process, "VmRSS:"), status(process, "Threads:"));
      } finally {
        channel.shutdownNow();
      }
    } finally {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
      deleteDatabase(db);
    }
  }

  private static ManagedChannel channel(int port) {
    return ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
  }

  private static boolean serving(ManagedChannel channel) {
    try {
      return HealthGrpc.newBlockingStub(channel)
              .withDeadlineAfter(1, TimeUnit.SECONDS)
              .check(HealthCheckRequest.getDefaultInstance())
              .getStatus()
          == ServingStatus.SERVING;
    } catch (StatusRuntimeException e) {
      return false;
    }
  }

  private static void check(Process process, long untilNanos) {
    if (!process.isAlive()) {
      throw new IllegalStateException(
          "the server exited with " + process.exitValue() + " before serving");
    }
    if (System.nanoTime() - untilNanos > 0) {
      throw new IllegalStateException("the server did not serve within " + TIMEOUT_MS + " ms");
    }
    Thread.onSpinWait();
  }

  private static boolean accepts(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 100);
      return true;
    } catch (IOException refused) {
      return false;
    }
  }

  private static double millisSince(long nanos) {
    return (System.nanoTime() - nanos) / 1e6;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress("127.0.0.1", 0));
      return s.getLocalPort();
    }
  }

  private static double status(Process process, String field) {
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

  private static void deleteDatabase(Path db) throws IOException {
    Path dir = db.getParent();
    String name = db.getFileName().toString();
    try (var files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.getFileName().toString().startsWith(name)).toList()) {
        Files.deleteIfExists(f);
      }
    }
  }
}
