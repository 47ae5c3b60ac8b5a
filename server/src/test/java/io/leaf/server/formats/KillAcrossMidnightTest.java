package io.leaf.server.formats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.StatusRuntimeException;
import io.leaf.server.testing.DatabaseKind;
import io.leaf.server.testing.FormattedServer;
import io.leaf.server.testing.Pace;
import io.leaf.server.testing.Poll;
import io.leaf.server.testing.ServerProcess;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.LeafServiceGrpc.LeafServiceBlockingStub;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.Reset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Three packaged servers on one database whose wall clocks (libfaketime, one offset for all) pass
 * midnight in Asia/Shanghai under load; one is killed with -9 just before midnight and started
 * again after it, another just after: no value repeats, and each shows its server's date at the
 * call.
 */
@Tag("slow")
@Execution(ExecutionMode.CONCURRENT)
@Order(1) // among the longest: started first
@ResourceLock("KillAcrossMidnightTest")
class KillAcrossMidnightTest {

  private static final Path LIBFAKETIME =
      Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");
  private static final Pattern LISTENING = Pattern.compile("Leaf listening on port (\\d+)");
  private static final Pattern VALUE = Pattern.compile("K-(\\d{8})-(\\d{7})");
  private static final ZoneId ZONE = ZoneId.of("Asia/Shanghai");
  private static final DateTimeFormatter KEY = DateTimeFormatter.BASIC_ISO_DATE;

  /** 2026-11-27 00:00 in Shanghai. */
  private static final Instant MIDNIGHT = Instant.parse("2026-11-26T16:00:00Z");

  /** Where the children's clocks stand while they start: far from midnight, however slow. */
  private static final Duration WHILE_STARTING = Duration.ofHours(1);

  /** Once all serve, their clocks are moved forward to this much before midnight. */
  private static final Duration LEAD = Duration.ofSeconds(15);

  private static final int SERVERS = 3;

  /**
   * What the callers got, as numbers ({@code yyyyMMdd * 10^7 + sequence}, so millions fit), and the
   * values that did not show their server's date at the call.
   */
  private static final class Collected {
    private final List<long[]> parts = new ArrayList<>();
    final ConcurrentLinkedQueue<String> wrongDate = new ConcurrentLinkedQueue<>();
    final AtomicLongArray served = new AtomicLongArray(SERVERS);
    final List<String> lastFailure = new ArrayList<>(List.of("", "", ""));

    synchronized void add(long[] part) {
      parts.add(part);
    }

    synchronized long[] sorted() {
      return parts.stream().flatMapToLong(Arrays::stream).sorted().toArray();
    }
  }

  /** A server process and a channel to it; replaced after a kill. */
  private static final class Node {
    final ServerProcess process;
    final ManagedChannel channel;

    Node(TestDatabase db, Path clockFile) throws Exception {
      // The JVM needs its monotonic clock real; without the monotonic fix off it starts
      // several times slower.
      process =
          ServerProcess.start(
              Map.of(
                  "LD_PRELOAD",
                  LIBFAKETIME.toString(),
                  // Re-read every second: the test moves every child's clock at once.
                  "FAKETIME_TIMESTAMP_FILE",
                  clockFile.toString(),
                  "FAKETIME_CACHE_DURATION",
                  "1",
                  "FAKETIME_DONT_FAKE_MONOTONIC",
                  "1",
                  "FAKETIME_FORCE_MONOTONIC_FIX",
                  "0",
                  "NO_FAKE_STAT",
                  "1"),
              "--port",
              "0",
              "--db-url",
              db.url,
              "--db-user",
              db.user,
              "--db-password",
              db.password,
              "--db-pool-size",
              "3");
      Matcher m = LISTENING.matcher("");
      try {
        assertTrue(
            process.awaitLine("Leaf listening", 60, TimeUnit.SECONDS),
            "the server started:\n" + process.output());
        m = LISTENING.matcher(process.output());
        assertTrue(m.find(), process.output());
      } catch (AssertionError | InterruptedException e) {
        process.close();
        throw e;
      }
      channel =
          ManagedChannelBuilder.forAddress("127.0.0.1", Integer.parseInt(m.group(1)))
              .usePlaintext()
              .build();
    }

    void kill() throws InterruptedException {
      channel.shutdownNow();
      process.close();
    }
  }

  // The production databases: H2's file store is crossed at midnight in-process by
  // SkewedClocksAcrossMidnightTest and ClockBehindRestartTest; three more JVMs cost CI a minute.
  @ParameterizedTest(name = "{0}")
  @EnumSource(
      value = DatabaseKind.class,
      names = {"MARIADB", "POSTGRES"})
  @Timeout(300)
  void killedAcrossMidnight_noRepeats_eachValueOfItsServersDate(DatabaseKind kind)
      throws Exception {
    if (!Files.exists(LIBFAKETIME)) {
      System.err.println(
          "[leaf-tests] SKIPPED kill across midnight: no "
              + LIBFAKETIME
              + " (apt-get install faketime)");
      Assumptions.abort("no libfaketime");
    }
    // H2: the processes share one file in H2's mixed mode.
    try (TestDatabase db = kind == DatabaseKind.H2 ? TestDatabases.h2Shared() : kind.open()) {
      long started = System.currentTimeMillis();
      Path clockFile = Files.createTempFile("leaf-faketime", ".rc");
      AtomicLong fakeOffsetMs = new AtomicLong();
      setClocks(clockFile, fakeOffsetMs, WHILE_STARTING);
      List<AtomicReference<Node>> nodes = new ArrayList<>();
      ExecutorService pool = Executors.newFixedThreadPool(SERVERS * 3);
      AtomicBoolean stop = new AtomicBoolean();
      Collected got = new Collected();
      AtomicLongArray served = got.served;
      try {
        for (int s = 0; s < SERVERS; s++) {
          nodes.add(new AtomicReference<>(new Node(db, clockFile)));
        }
        LeafServiceGrpc.newBlockingStub(nodes.get(0).get().channel)
            .createTag(
                CreateTagRequest.newBuilder()
                    .setBizTag("k")
                    .setStep(20)
                    .setFormat(
                        FormattedServer.format("K-{yyyyMMdd}-{seq:7}", Reset.DAILY, ZONE.getId()))
                    .build());
        List<Future<?>> callers = new ArrayList<>();
        for (int c = 0; c < SERVERS * 3; c++) {
          int server = c % SERVERS;
          AtomicReference<Node> node = nodes.get(server);
          boolean batch = c >= SERVERS * 2;
          callers.add(
              pool.submit(
                  () -> {
                    got.add(call(node, server, batch, stop, fakeOffsetMs, got));
                    return null;
                  }));
        }
        assertTrue(
            Poll.until(
                () -> IntStream.range(0, SERVERS).allMatch(s -> served.get(s) >= 100),
                Duration.ofSeconds(120)),
            () -> "every server serves before the clocks move: " + served);
        setClocks(clockFile, fakeOffsetMs, LEAD);
        long fakeMidnight = MIDNIGHT.toEpochMilli();
        long beforeKill = fakeMidnight - 6_000 - fakeOffsetMs.get();
        assertTrue(
            System.currentTimeMillis() < beforeKill,
            "the servers started before their midnight: "
                + (beforeKill - System.currentTimeMillis())
                + " ms to spare");
        Pace.holdMillis(beforeKill - System.currentTimeMillis());
        // Killed 6 s before midnight; its successor starts after it.
        restart(nodes.get(0), db, clockFile);
        long afterKill = fakeMidnight + 3_000 - fakeOffsetMs.get();
        Pace.holdMillis(Math.max(0, afterKill - System.currentTimeMillis()));
        restart(nodes.get(1), db, clockFile);
        long[] from = new long[SERVERS];
        for (int s = 0; s < SERVERS; s++) {
          from[s] = served.get(s);
        }
        assertTrue(
            Poll.until(
                () -> IntStream.range(0, SERVERS).allMatch(s -> served.get(s) >= from[s] + 1_000),
                Duration.ofSeconds(60)),
            () ->
                "every server, the restarted ones too, serves after the kills: "
                    + served
                    + ", last failures "
                    + got.lastFailure
                    + IntStream.range(0, SERVERS)
                        .filter(s -> served.get(s) < from[s] + 1_000)
                        .mapToObj(
                            s ->
                                "\nserver " + s + "'s output:\n" + tail(nodes.get(s).get().process))
                        .collect(java.util.stream.Collectors.joining()));
        stop.set(true);
        for (Future<?> f : callers) {
          f.get(1, TimeUnit.MINUTES);
        }
        check(kind, got, System.currentTimeMillis() - started);
      } finally {
        stop.set(true);
        pool.shutdownNow();
        for (AtomicReference<Node> node : nodes) {
          node.get().kill();
        }
        Files.deleteIfExists(clockFile);
      }
    }
  }

  private static void restart(AtomicReference<Node> node, TestDatabase db, Path clockFile)
      throws Exception {
    node.get().kill();
    node.set(new Node(db, clockFile));
  }

  /**
   * Sets every child's clock (libfaketime reads {@code file} again within a second) to {@code
   * before} ahead of midnight, in whole seconds, and waits until all read it.
   */
  private static void setClocks(Path file, AtomicLong offsetMs, Duration before) throws Exception {
    long offset =
        Math.floorDiv(
            MIDNIGHT.toEpochMilli() - before.toMillis() - System.currentTimeMillis(), 1000);
    Path next = file.resolveSibling(file.getFileName() + ".next");
    Files.writeString(next, (offset >= 0 ? "+" : "") + offset + "\n");
    Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    offsetMs.set(offset * 1000);
    Pace.holdMillis(1_500); // libfaketime's cache of the file: one second
  }

  private static void check(DatabaseKind kind, Collected got, long millis) {
    long[] all = got.sorted();
    long repeats = 0;
    Map<Long, Integer> perDate = new TreeMap<>();
    for (int i = 0; i < all.length; i++) {
      if (i > 0 && all[i] == all[i - 1]) {
        repeats++;
      }
      perDate.merge(all[i] / 10_000_000L, 1, Integer::sum);
    }
    System.err.println(
        "[leaf-tests] three servers across midnight, two killed with -9, on "
            + kind
            + ": "
            + all.length
            + " values in "
            + millis
            + " ms, "
            + repeats
            + " repeats, per date "
            + perDate
            + ", "
            + got.wrongDate.size()
            + " of another date");
    assertEquals(0, repeats);
    assertEquals(List.of(), List.copyOf(got.wrongDate));
    assertEquals(Set.of(20261126L, 20261127L), perDate.keySet());
  }

  private static String tail(ServerProcess p) {
    List<String> lines = p.lines();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
  }

  private static String date(long millis) {
    return KEY.format(Instant.ofEpochMilli(millis).atZone(ZONE).toLocalDate());
  }

  /**
   * Calls its server until stopped, following it across restarts (failures skipped); checks each
   * value's date against the children's clock before and after the call, a second either side.
   */
  private static long[] call(
      AtomicReference<Node> node,
      int server,
      boolean batch,
      AtomicBoolean stop,
      AtomicLong offsetMs,
      Collected got)
      throws InterruptedException {
    long[] codes = new long[1 << 14];
    int n = 0;
    while (!stop.get()) {
      try {
        LeafServiceBlockingStub stub =
            LeafServiceGrpc.newBlockingStub(node.get().channel)
                .withDeadlineAfter(2, TimeUnit.SECONDS);
        long before = System.currentTimeMillis() + offsetMs.get();
        List<String> values = new ArrayList<>();
        if (batch) {
          stub.nextFormattedIdBatch(
                  NextIdBatchRequest.newBuilder().setBizTag("k").setCount(10).build())
              .forEachRemaining(b -> values.addAll(b.getValuesList()));
        } else {
          values.add(
              stub.nextFormattedId(NextIdRequest.newBuilder().setBizTag("k").build()).getValue());
        }
        long after = System.currentTimeMillis() + offsetMs.get();
        for (String v : values) {
          Matcher m = VALUE.matcher(v);
          assertTrue(m.matches(), v);
          String date = m.group(1);
          if (!date.equals(date(before - 1_000))
              && !date.equals(date(after + 1_000))
              && got.wrongDate.size() < 10) {
            got.wrongDate.add(
                v
                    + " from server "
                    + server
                    + " between "
                    + Instant.ofEpochMilli(before)
                    + " and "
                    + Instant.ofEpochMilli(after));
          }
          if (n == codes.length) {
            codes = Arrays.copyOf(codes, n * 2);
          }
          codes[n++] = Long.parseLong(date) * 10_000_000L + Long.parseLong(m.group(2));
        }
        got.served.addAndGet(server, values.size());
      } catch (StatusRuntimeException e) {
        // The server was killed under the call, or is starting again.
        synchronized (got.lastFailure) {
          got.lastFailure.set(server, e.getStatus().toString());
        }
        Pace.backOff();
      }
    }
    return Arrays.copyOf(codes, n);
  }
}
