package io.leaf.server.snowflake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.testing.Pace;
import io.leaf.server.testing.Poll;
import io.leaf.server.testing.ServerNode;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import io.leaf.v1.ClientWorker;
import io.leaf.v1.GetWorkerRequest;
import io.leaf.v1.NextSnowflakeIdBatchRequest;
import io.leaf.v1.SnowflakeServiceGrpc;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A server and two client processes making snowflake IDs with {@code LocalSnowflakeIds} on three
 * worker IDs of one MariaDB lease table: one client is stopped (SIGSTOP) past its lease and
 * resumed, the other's lease row is deleted under it; every ID of the server and both clients is
 * counted and none is made twice.
 */
@Tag("slow")
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("LocalSnowflakeProcessTest")
class LocalSnowflakeProcessTest {

  private static final Pattern PORT = Pattern.compile("Leaf listening on port (\\d+)");

  @TempDir Path dir;

  /** One client JVM on the test classpath; its output in a file. */
  private final class Client implements AutoCloseable {
    final Process process;
    final Path ids;
    final Path log;

    Client(String name, String target) throws IOException {
      ids = dir.resolve(name + ".ids");
      log = dir.resolve(name + ".log");
      String classpath =
          System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
      Path java = Path.of(System.getProperty("java.home"), "bin", "java");
      process =
          new ProcessBuilder(
                  java.toString(),
                  "-Xmx128m",
                  "-cp",
                  classpath,
                  LocalSnowflakeClientMain.class.getName(),
                  target,
                  ids.toString(),
                  dir.resolve("stop").toString())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
    }

    List<String> lines() throws IOException {
      return Files.exists(log) ? Files.readAllLines(log) : List.of();
    }

    /** Waits until the client has printed {@code count} lines containing {@code text}. */
    boolean await(String text, int count, int seconds) throws Exception {
      return Poll.until(
          () -> {
            try {
              return lines().stream().filter(l -> l.contains(text)).count() >= count;
            } catch (IOException e) {
              return false;
            }
          },
          Duration.ofSeconds(seconds));
    }

    /** The worker ID it issues under now (its last "issuing" line). */
    int worker() throws IOException {
      List<String> issuing = lines().stream().filter(l -> l.startsWith("issuing ")).toList();
      return Integer.parseInt(issuing.get(issuing.size() - 1).substring(8).trim());
    }

    void signal(String signal) throws Exception {
      assertEquals(
          0,
          new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
              .inheritIO()
              .start()
              .waitFor());
    }

    long[] read() throws IOException {
      long[] out = new long[(int) (Files.size(ids) / 8)];
      try (DataInputStream in =
          new DataInputStream(new BufferedInputStream(Files.newInputStream(ids)))) {
        for (int i = 0; i < out.length; i++) {
          out[i] = in.readLong();
        }
      } catch (EOFException e) {
        throw new AssertionError("a partial ID in " + ids, e);
      }
      return out;
    }

    @Override
    public void close() throws Exception {
      if (process.isAlive()) {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
      }
    }

    String output() throws IOException {
      return String.join("\n", lines());
    }
  }

  @Test
  void twoClientJvms_oneStoppedPastItsLease_otherRowDeleted_zeroRepeats() throws Exception {
    try (TestDatabase db = TestDatabases.mariaDb()) {
      ServerNode server =
          new ServerNode(db, "--worker-id-range", "0-2", "--worker-lease-ttl", "3s");
      try {
        Matcher m = PORT.matcher(server.process.output());
        assertTrue(m.find());
        String target = "127.0.0.1:" + m.group(1);
        SnowflakeServiceGrpc.SnowflakeServiceBlockingStub stub =
            SnowflakeServiceGrpc.newBlockingStub(server.channel)
                .withDeadlineAfter(60, TimeUnit.SECONDS);
        List<long[]> all = new ArrayList<>();
        try (Client a = new Client("a", target);
            Client b = new Client("b", target)) {
          // A claim is quarantined for the TTL plus 1 s.
          assertTrue(a.await("issuing", 1, 60), "a issues:\n" + a.output());
          assertTrue(b.await("issuing", 1, 60), "b issues:\n" + b.output());
          all.add(serverIds(stub));
          int aWorker = a.worker();
          Pace.holdMillis(1_000);
          a.signal("STOP");
          // Past a's lease (valid 2.4 s, TTL 3 s): its row ends while it is stopped.
          Pace.holdMillis(5_000);
          int bWorker = b.worker();
          try (Connection c = DriverManager.getConnection(db.url, db.user, db.password);
              Statement st = c.createStatement()) {
            st.executeUpdate("DELETE FROM leaf_worker WHERE worker_id = " + bWorker);
          }
          // b's renewal finds no row: it stops, leases again (maybe a's worker) and issues again.
          assertTrue(b.await("issuing", 2, 60), "b issues again:\n" + b.output());
          a.signal("CONT");
          assertTrue(a.await("issuing", 2, 60), "a issues again after SIGCONT:\n" + a.output());
          Pace.holdMillis(1_000);
          Files.createFile(dir.resolve("stop"));
          assertTrue(a.process.waitFor(30, TimeUnit.SECONDS), a.output());
          assertTrue(b.process.waitFor(30, TimeUnit.SECONDS), b.output());
          List<ClientWorker> left =
              stub.getWorker(GetWorkerRequest.getDefaultInstance()).getClientWorkersList();
          assertEquals(List.of(), left, "both clients released their workers");
          all.add(serverIds(stub));
          long[] fromA = a.read();
          long[] fromB = b.read();
          all.add(fromA);
          all.add(fromB);
          long duplicates = duplicates(all);
          System.out.printf(
              "[local-snowflake] server + two client JVMs: a made %d (worker %d, then %d), b made"
                  + " %d (worker %d, then %d), server %d; duplicates %d%n%s%n%s%n",
              fromA.length,
              aWorker,
              a.worker(),
              fromB.length,
              bWorker,
              b.worker(),
              all.get(0).length + all.get(1).length,
              duplicates,
              a.output(),
              b.output());
          assertEquals(0, duplicates, "no ID made twice");
          assertTrue(fromA.length > 1_000 && fromB.length > 1_000, "both clients made IDs");
        }
      } finally {
        server.kill();
      }
    }
  }

  private static long[] serverIds(SnowflakeServiceGrpc.SnowflakeServiceBlockingStub stub) {
    List<Long> ids = new ArrayList<>();
    stub.nextSnowflakeIdBatch(NextSnowflakeIdBatchRequest.newBuilder().setCount(10_000).build())
        .forEachRemaining(b -> ids.addAll(b.getIdsList()));
    return ids.stream().mapToLong(Long::longValue).toArray();
  }

  private static long duplicates(List<long[]> parts) {
    long[] all = parts.stream().flatMapToLong(Arrays::stream).toArray();
    Arrays.sort(all);
    long duplicates = 0;
    for (int i = 1; i < all.length; i++) {
      if (all[i] == all[i - 1]) {
        duplicates++;
      }
    }
    return duplicates;
  }
}
