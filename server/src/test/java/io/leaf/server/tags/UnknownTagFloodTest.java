package io.leaf.server.tags;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.testing.Pace;
import io.leaf.server.testing.Ports;
import io.leaf.server.testing.ServerProcess;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A token-less flood of distinct names the table cannot hold — outside its ASCII character set,
 * longer than its {@code biz_tag} — at a server process with a 128 MB heap on MariaDB: every one is
 * answered 404, the heap after a full GC stays where it was, no OutOfMemoryError, and a known tag
 * is answered throughout. The flood lasts {@code -Dleaf.flood.seconds} (default 20).
 */
@Tag("slow")
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("UnknownTagFloodTest")
class UnknownTagFloodTest {

  private static final int COLUMN = 64;
  private static final int FLOODERS = 8;

  /**
   * What the heap after a full GC may grow by over the flood: noise, not names (the code before
   * this check kept about 2 KB per name the database refused, 6.5 MB in 20 s on a small host).
   */
  private static final long HEAP_GROWTH_LIMIT = 4L << 20;

  /** Counted in place of a status when a request got no answer (timed out, connection lost). */
  private static final int NO_ANSWER = -1;

  private static final Pattern HEAP_USED =
      Pattern.compile("(?m)^jvm_memory_used_bytes\\{area=\"heap\"[^}]*} ([0-9.E+]+)$");

  private final HttpClient metricsClient =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10))
          .build();

  @Test
  @Timeout(600)
  void floodOfNamesTheTableCannotHold_heapFlatAndKnownTagAnswered() throws Exception {
    long seconds = Long.getLong("leaf.flood.seconds", 20);
    int httpPort = Ports.free();
    int metricsPort = Ports.free();
    try (TestDatabase db = TestDatabases.mariaDb()) {
      try (Connection c = DriverManager.getConnection(db.url, db.user, db.password);
          Statement s = c.createStatement()) {
        // Leaf's table as a DBA might narrow it: ASCII, 64 characters.
        s.execute(
            "CREATE TABLE leaf_alloc (id BIGINT NOT NULL AUTO_INCREMENT,"
                + " biz_tag VARCHAR("
                + COLUMN
                + ") CHARACTER SET ascii COLLATE ascii_bin NOT NULL,"
                + " max_id BIGINT NOT NULL DEFAULT 1, step INT NOT NULL,"
                + " description VARCHAR(256) CHARACTER SET utf8mb4, update_time BIGINT NOT NULL,"
                + " PRIMARY KEY (id), CONSTRAINT uk_leaf_alloc_biz_tag UNIQUE (biz_tag))");
        s.execute(
            "INSERT INTO leaf_alloc (biz_tag, max_id, step, update_time)"
                + " VALUES ('known', 1, 1000, 0)");
      }
      try (ServerProcess server =
          ServerProcess.start(
              List.of("-Xmx128m"),
              Map.of(),
              "--port",
              "0",
              "--db-url",
              db.url,
              "--db-user",
              db.user,
              "--db-password",
              db.password,
              "--db-pool-size",
              "2",
              "--http-port",
              Integer.toString(httpPort),
              "--metrics-port",
              Integer.toString(metricsPort))) {
        assertTrue(
            server.awaitLine("Leaf listening", 90, TimeUnit.SECONDS),
            "the server started:\n" + server.output());
        long heapBefore = heapAfterFullGc(server, metricsPort);
        Flood flood = new Flood(httpPort, metricsPort, seconds);
        flood.run();
        long heapAfter = heapAfterFullGc(server, metricsPort);
        String report =
            String.format(
                "flood %d s: %d names sent, answers %s; known tag %d calls, %d failed; heap after"
                    + " full GC %.1f MB before, %.1f MB after, %.1f MB at most during the flood",
                seconds,
                flood.sent.sum(),
                flood.answers,
                flood.knownCalls.sum(),
                flood.knownFailures.sum(),
                heapBefore / 1e6,
                heapAfter / 1e6,
                flood.heapPeak.get() / 1e6);
        System.out.println("[leaf-flood] " + report);

        String output = server.output();
        assertFalse(output.contains("OutOfMemoryError"), report + "\n" + output);
        assertTrue(flood.sent.sum() > 0, report);
        assertEquals(
            Map.of(404, flood.sent.sum()),
            Map.copyOf(flood.answers),
            "every name the table cannot hold is 404: " + report);
        assertEquals(0, flood.knownFailures.sum(), "the known tag answered throughout: " + report);
        assertTrue(heapAfter - heapBefore < HEAP_GROWTH_LIMIT, "heap flat: " + report);
      }
    }
  }

  /** Eight keep-alive connections sending distinct names, and one caller of the known tag. */
  private final class Flood {
    final int port;
    final int metricsPort;
    final long seconds;
    final LongAdder sent = new LongAdder();
    final Map<Integer, Long> answers = new ConcurrentHashMap<>();
    final LongAdder knownCalls = new LongAdder();
    final LongAdder knownFailures = new LongAdder();
    final AtomicLong heapPeak = new AtomicLong();

    Flood(int port, int metricsPort, long seconds) {
      this.port = port;
      this.metricsPort = metricsPort;
      this.seconds = seconds;
    }

    void run() throws Exception {
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
      ExecutorService pool = Executors.newFixedThreadPool(FLOODERS + 1);
      try {
        List<Future<?>> all = new ArrayList<>();
        for (int t = 0; t < FLOODERS; t++) {
          int thread = t;
          all.add(
              pool.submit(
                  () -> {
                    flood(thread, end);
                    return null;
                  }));
        }
        all.add(
            pool.submit(
                () -> {
                  callKnown(end);
                  return null;
                }));
        for (Future<?> f : all) {
          f.get(seconds + 120, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
    }

    private void flood(int thread, long end) throws Exception {
      // One client per thread: its own keep-alive connection.
      HttpClient client =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .connectTimeout(Duration.ofSeconds(10))
              .build();
      for (long i = 0; System.nanoTime() < end; i++) {
        String name =
            i % 2 == 0
                ? "订单-" + thread + "-" + i
                : "x".repeat(COLUMN + 1 + (int) (i % 50)) + "-" + thread + "-" + i;
        int status;
        try {
          status =
              client
                  .send(
                      HttpRequest.newBuilder(
                              URI.create(
                                  "http://127.0.0.1:"
                                      + port
                                      + "/api/segment/get/"
                                      + URLEncoder.encode(name, StandardCharsets.UTF_8)))
                          .timeout(Duration.ofSeconds(30))
                          .build(),
                      HttpResponse.BodyHandlers.discarding())
                  .statusCode();
        } catch (IOException e) {
          status = NO_ANSWER;
        }
        sent.increment();
        answers.merge(status, 1L, Long::sum);
      }
    }

    private void callKnown(long end) throws Exception {
      HttpClient client =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .connectTimeout(Duration.ofSeconds(10))
              .build();
      long last = 0;
      while (System.nanoTime() < end) {
        knownCalls.increment();
        try {
          HttpResponse<String> r =
              client.send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + port + "/api/segment/get/known"))
                      .timeout(Duration.ofSeconds(10))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
          long id = r.statusCode() == 200 ? Long.parseLong(r.body().strip()) : -1;
          if (id <= last) {
            knownFailures.increment();
          } else {
            last = id;
          }
        } catch (Exception e) {
          knownFailures.increment();
        }
        heapPeak.accumulateAndGet(heapUsed(metricsPort), Math::max);
        Pace.holdMillis(200); // deliberate: one sample every 200 ms
      }
    }
  }

  /** Heap in use right after a full GC the test asks the server's JVM for. */
  private long heapAfterFullGc(ServerProcess server, int port) throws Exception {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Process gc =
        new ProcessBuilder(jcmd.toString(), Long.toString(server.pid()), "GC.run")
            .redirectErrorStream(true)
            .start();
    gc.getInputStream().readAllBytes();
    assertTrue(gc.waitFor(60, TimeUnit.SECONDS) && gc.exitValue() == 0, "jcmd GC.run ran");
    return heapUsed(port);
  }

  /** The sum of {@code jvm_memory_used_bytes} over the heap's pools, from {@code /metrics}. */
  private long heapUsed(int port) throws Exception {
    String metrics =
        metricsClient
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                    .timeout(Duration.ofSeconds(10))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    Matcher m = HEAP_USED.matcher(metrics);
    double sum = 0;
    boolean any = false;
    while (m.find()) {
      sum += Double.parseDouble(m.group(1));
      any = true;
    }
    assertTrue(any, "/metrics has jvm_memory_used_bytes of the heap");
    return (long) sum;
  }
}
