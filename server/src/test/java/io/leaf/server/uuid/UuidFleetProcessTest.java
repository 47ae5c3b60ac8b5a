package io.leaf.server.uuid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.leaf.server.snowflake.SnowflakeLayout;
import io.leaf.server.testing.Pace;
import io.leaf.server.testing.Poll;
import io.leaf.server.testing.SnowflakeServers;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import io.leaf.v1.NextUuidBatchRequest;
import io.leaf.v1.UuidBatch;
import io.leaf.v1.WorkerStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Three server processes on one MariaDB database draw 1,000,000 UUIDs through NextUuidBatch while
 * one is killed with {@code kill -9} and started again with its clock an hour behind (libfaketime),
 * and another's lease row is deleted under load: no two values share their timestamp, counter and
 * worker ID (so none is shared), and each process's values strictly increase. Skipped with a
 * visible line when libfaketime is not installed.
 */
@Tag("slow")
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("UuidFleetProcessTest")
class UuidFleetProcessTest {

  private static final Path LIBFAKETIME =
      Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");

  /** Three worker IDs for three servers: a restarted server must take its predecessor's. */
  private static final String[] FLAGS = {"--worker-id-range", "21-23", "--worker-lease-ttl", "3s"};

  private static final long TOTAL = 1_000_000;
  private static final int STREAM = 50_000;
  private static final UuidLayout LAYOUT = new UuidLayout(SnowflakeLayout.DEFAULT);

  @BeforeAll
  static void needFaketime() {
    if (!Files.exists(LIBFAKETIME)) {
      System.err.println(
          "[leaf-tests] SKIPPED UUID fleet test: "
              + LIBFAKETIME
              + " not found (apt-get install faketime)");
      Assumptions.abort("SKIPPED: no libfaketime");
    }
  }

  /** The environment of a JVM whose wall clock runs {@code seconds} behind. */
  private static Map<String, String> clockBehind(long seconds) {
    // The monotonic clock stays real (as a wall-clock step leaves it); with the monotonic fix
    // off the JVM starts at its usual speed.
    return Map.of(
        "LD_PRELOAD",
        LIBFAKETIME.toString(),
        "FAKETIME",
        "-" + seconds,
        "FAKETIME_DONT_FAKE_MONOTONIC",
        "1",
        "FAKETIME_FORCE_MONOTONIC_FIX",
        "0",
        "NO_FAKE_STAT",
        "1");
  }

  /**
   * One server process's values in the order received: one thread reads one NextUuidBatch stream at
   * a time, so that order is the order the server issued them. Values are kept as two longs.
   */
  private static final class Lifetime {
    final String name;
    private final SnowflakeServers.Server server;
    private final AtomicLong budget;
    private long[] msb = new long[1 << 16];
    private long[] lsb = new long[1 << 16];
    private volatile int count;

    /** How many values this lifetime may draw in all (raised by the test as it goes). */
    volatile long allowed;

    final Map<Status.Code, Integer> failures = new ConcurrentHashMap<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread thread;

    Lifetime(String name, SnowflakeServers.Server server, AtomicLong budget) {
      this.name = name;
      this.server = server;
      this.budget = budget;
      this.thread = new Thread(this::draw, "uuid-draw-" + name);
      thread.setDaemon(true);
      thread.start();
    }

    private void draw() {
      while (!stop.get()) {
        int want = (int) Math.min(STREAM, allowed - count);
        int taken = want <= 0 ? 0 : take(want);
        if (taken == 0) {
          pause(2);
          continue;
        }
        int before = count;
        try {
          Iterator<UuidBatch> batches =
              server
                  .stub
                  .withDeadlineAfter(20, TimeUnit.SECONDS)
                  .nextUuidBatch(
                      NextUuidBatchRequest.newBuilder()
                          .setCount(taken)
                          .setChunkSize(10_000)
                          .build());
          while (batches.hasNext()) {
            for (String v : batches.next().getValuesList()) {
              add(UUID.fromString(v));
            }
          }
        } catch (StatusRuntimeException e) {
          failures.merge(e.getStatus().getCode(), 1, Integer::sum);
          pause(20);
        } finally {
          // What a broken stream did not deliver goes back to the others.
          budget.addAndGet(taken - (count - before));
        }
      }
    }

    /** Takes up to {@code want} values of the shared budget; how many it got. */
    private int take(int want) {
      while (true) {
        long left = budget.get();
        int n = (int) Math.min(want, left);
        if (n <= 0 || budget.compareAndSet(left, left - n)) {
          return Math.max(n, 0);
        }
      }
    }

    private void add(UUID u) {
      if (count == msb.length) {
        msb = Arrays.copyOf(msb, count * 2);
        lsb = Arrays.copyOf(lsb, count * 2);
      }
      msb[count] = u.getMostSignificantBits();
      lsb[count] = u.getLeastSignificantBits();
      count++;
    }

    private static void pause(long ms) {
      try {
        Pace.holdMillis(ms); // an idle or refused drawer polls
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    int count() {
      return count;
    }

    /** Stops drawing and waits for the stream in flight. */
    void stop() throws InterruptedException {
      stop.set(true);
      thread.join(30_000);
      assertTrue(!thread.isAlive(), name + " stopped drawing");
    }

    UUID value(int i) {
      return new UUID(msb[i], lsb[i]);
    }

    /** The first index whose value is not above the one before it, or -1. */
    int firstOutOfOrder() {
      for (int i = 1; i < count; i++) {
        if (compareUnsigned(i - 1, i) >= 0) {
          return i;
        }
      }
      return -1;
    }

    private int compareUnsigned(int i, int j) {
      int c = Long.compareUnsigned(msb[i], msb[j]);
      return c != 0 ? c : Long.compareUnsigned(lsb[i], lsb[j]);
    }
  }

  private static void await(Supplier<String> what, BooleanSupplier condition, int seconds)
      throws InterruptedException {
    assertTrue(Poll.until(condition, Duration.ofSeconds(seconds)), what);
  }

  /** Where the run is, for the log and assertion messages. */
  private static String progress(long started, AtomicLong budget, List<Lifetime> lifetimes) {
    StringBuilder out =
        new StringBuilder(String.format("%.1f s:", (System.nanoTime() - started) / 1e9));
    for (Lifetime l : lifetimes) {
      out.append(' ').append(l.name).append(' ').append(l.count()).append(' ').append(l.failures);
    }
    return out.append(", budget left ").append(budget.get()).toString();
  }

  private static long occurrences(SnowflakeServers.Server s, String text) {
    return s.process.lines().stream().filter(l -> l.contains(text)).count();
  }

  @Test
  @Timeout(240)
  void millionUuids_killAndRestartAnHourBehind_leaseRowDeleted_noneSharedEachIncreasing()
      throws Exception {
    long started = System.nanoTime();
    AtomicLong budget = new AtomicLong(TOTAL);
    List<Lifetime> lifetimes = new ArrayList<>();
    try (TestDatabase db = TestDatabases.mariaDb();
        SnowflakeServers servers = new SnowflakeServers(db)) {
      SnowflakeServers.Server a = servers.start(Map.of(), FLAGS);
      SnowflakeServers.Server b = servers.start(Map.of(), FLAGS);
      SnowflakeServers.Server c = servers.start(Map.of(), FLAGS);
      for (SnowflakeServers.Server s : List.of(a, b, c)) {
        assertTrue(s.awaitWorker(-2, 30), "leased\n" + s.process.output());
      }
      WorkerStatus layout = a.worker();
      // The checks below read the counter from the high 64 bits: the 12-bit default sequence.
      assertEquals(
          List.of(41, 10, 12),
          List.of(layout.getTimestampBits(), layout.getWorkerIdBits(), layout.getSequenceBits()));
      int workerA = a.worker().getWorkerId();
      int workerC = c.worker().getWorkerId();
      Lifetime la = new Lifetime("a", a, budget);
      Lifetime lb = new Lifetime("b", b, budget);
      Lifetime lc = new Lifetime("c", c, budget);
      lifetimes.addAll(List.of(la, lb, lc));

      // c draws on past 100,000 and is killed while it streams.
      la.allowed = 100_000;
      lb.allowed = 100_000;
      lc.allowed = 250_000;
      await(
          () -> "all three serve",
          () -> la.count() >= 100_000 && lb.count() >= 100_000 && lc.count() >= 100_000,
          60);
      la.allowed = 150_000;
      lb.allowed = 150_000;
      c.process.signal("9");
      assertTrue(c.process.awaitExit(10, TimeUnit.SECONDS) != null, "c killed");
      lc.stop();

      System.out.println("[uuid] " + progress(started, budget, lifetimes));
      // c again, an hour behind: it waits for its lease to run out and takes the same worker.
      SnowflakeServers.Server c2 = servers.start(clockBehind(3600), FLAGS);
      assertTrue(
          c2.awaitWorker(workerC, 30),
          "c, an hour behind, takes worker " + workerC + "\n" + c2.process.output());
      Lifetime lc2 = new Lifetime("c-restarted", c2, budget);
      lifetimes.add(lc2);
      lc2.allowed = 80_000;
      await(() -> "c serves an hour behind", () -> lc2.count() >= 80_000, 60);
      WorkerStatus behind = c2.worker();

      System.out.println("[uuid] " + progress(started, budget, lifetimes));
      // a's lease row deleted while a streams: a stops, claims again, serves again. a is paced
      // (at most 1,000 values per poll) so it cannot draw the rest of the million before its
      // next renewal finds the row gone.
      int beforeDelete = la.count();
      BooleanSupplier paceA =
          () -> {
            la.allowed = Math.max(la.allowed, la.count() + 1_000);
            return false;
          };
      await(
          () -> "a streams", () -> paceA.getAsBoolean() || la.count() >= beforeDelete + 20_000, 30);
      int deleted;
      try (Connection conn = DriverManager.getConnection(db.url, db.user, db.password);
          Statement st = conn.createStatement()) {
        deleted = st.executeUpdate("DELETE FROM leaf_worker WHERE worker_id = " + workerA);
      }
      assertEquals(1, deleted, "a's lease row deleted");
      await(
          () -> "a learns its row is gone\n" + a.process.output(),
          () -> paceA.getAsBoolean() || occurrences(a, "is no longer this server's") > 0,
          10);
      int atLoss = la.count();
      await(
          () -> "a leases again\n" + a.process.output(),
          () -> paceA.getAsBoolean() || occurrences(a, "leased; IDs start above") >= 2,
          20);
      await(
          () -> "a serves again: " + progress(started, budget, lifetimes),
          () -> paceA.getAsBoolean() || la.count() >= atLoss + 20_000,
          30);
      la.allowed = la.count();

      System.out.println("[uuid] " + progress(started, budget, lifetimes));
      // The rest of the million from all three.
      for (Lifetime l : List.of(la, lb, lc2)) {
        l.allowed = TOTAL;
      }
      await(() -> "a million drawn", () -> budget.get() == 0, 60);
      for (Lifetime l : lifetimes) {
        l.stop();
      }
      double seconds = (System.nanoTime() - started) / 1e9;

      long drawn = lifetimes.stream().mapToLong(Lifetime::count).sum();
      Map<Integer, long[]> highBitsByWorker = new HashMap<>();
      Map<String, Set<Integer>> workersOf = new HashMap<>();
      Map<Integer, Integer> filled = new HashMap<>();
      for (Lifetime l : lifetimes) {
        Set<Integer> workers = new TreeSet<>();
        for (int i = 0; i < l.count(); i++) {
          int w = LAYOUT.decode(l.value(i)).workerId();
          workers.add(w);
          int at = filled.merge(w, 1, Integer::sum) - 1;
          long[] highs =
              highBitsByWorker.computeIfAbsent(w, k -> new long[Math.max(1 << 16, l.count())]);
          if (at == highs.length) {
            highs = Arrays.copyOf(highs, highs.length * 2);
            highBitsByWorker.put(w, highs);
          }
          highs[at] = l.msb[i];
        }
        workersOf.put(l.name, workers);
      }
      // The high 64 bits are the timestamp, version and 12-bit counter: with the worker ID they
      // are the whole value but its random bits. None shared there means none shared at all.
      long shared = 0;
      for (Map.Entry<Integer, long[]> e : highBitsByWorker.entrySet()) {
        long[] highs = Arrays.copyOf(e.getValue(), filled.get(e.getKey()));
        Arrays.sort(highs);
        for (int i = 1; i < highs.length; i++) {
          shared += highs[i] == highs[i - 1] ? 1 : 0;
        }
      }
      System.out.printf(
          "[uuid] three servers, c killed and restarted an hour behind (IDs %d ms ahead of its"
              + " clock), a's lease row deleted: drawn %d (a %d, b %d, c %d, c again %d) in"
              + " %.1f s; workers %s; failures a %s, c again %s; sharing timestamp, counter and"
              + " worker %d%n",
          behind.getAheadOfWallClockMs(),
          drawn,
          la.count(),
          lb.count(),
          lc.count(),
          lc2.count(),
          seconds,
          workersOf,
          la.failures,
          lc2.failures,
          shared);

      assertEquals(TOTAL, drawn, "a million drawn");
      assertEquals(0, shared, "no two values share timestamp, counter and worker ID");
      for (Lifetime l : lifetimes) {
        int at = l.firstOutOfOrder();
        assertEquals(
            -1, at, () -> l.name + " increases: " + l.value(at - 1) + " then " + l.value(at));
        assertTrue(l.count() > 10_000, l.name + " served: " + l.count());
      }
      assertEquals(Set.of(workerC), workersOf.get("c"), "c used one worker ID");
      assertEquals(Set.of(workerC), workersOf.get("c-restarted"), "c again took its worker");
      assertTrue(
          behind.getAheadOfWallClockMs() > 3_500_000,
          "c's clock ran about an hour behind: " + behind.getAheadOfWallClockMs());
      assertTrue(
          Long.compareUnsigned(lc2.msb[0], lc.msb[lc.count() - 1]) > 0,
          "c, an hour behind, starts above what it issued before the kill: "
              + lc.value(lc.count() - 1)
              + " then "
              + lc2.value(0));
      assertTrue(
          la.failures.getOrDefault(Status.Code.UNAVAILABLE, 0) > 0,
          "a refused while its lease was gone: " + la.failures);
    } finally {
      for (Lifetime l : lifetimes) {
        l.stop.set(true);
      }
    }
  }
}
