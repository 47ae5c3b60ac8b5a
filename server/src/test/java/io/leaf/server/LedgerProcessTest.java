package io.leaf.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.leaf.server.testing.Pace;
import io.leaf.server.testing.Poll;
import io.leaf.server.testing.ServerNode;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import io.leaf.v1.IdBatch;
import io.leaf.v1.IdRange;
import io.leaf.v1.IssuedRange;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.ReserveIdsRequest;
import io.leaf.v1.ReservedIds;
import io.leaf.v1.WhoIssuedRequest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Three server processes on one database with the ledger on, mixed callers (NextId, batches,
 * ReserveIds): killed with -9, or stopped gracefully one after another (a rolling restart). No ID
 * is issued twice, every ID a caller received lies in a range the ledger records as issued, and a
 * graceful stop hands the rest back.
 */
@Tag("slow")
@Execution(ExecutionMode.CONCURRENT)
@Order(1) // among the longest: started first
@ResourceLock("LedgerProcessTest")
class LedgerProcessTest {

  private static final int SERVERS = 3;
  private static final String TAG = "mixed";

  @Test
  @Timeout(180)
  void killMinus9_mariaDb_noRepeatsEveryIdInTheLedger() throws Exception {
    kills(TestDatabases::mariaDb);
  }

  @Test
  @Timeout(180)
  void killMinus9_postgres_noRepeatsEveryIdInTheLedger() throws Exception {
    kills(TestDatabases::postgres);
  }

  @Test
  @Timeout(180)
  void rollingRestart_mariaDb_restHandedBackReservedNeverReturned() throws Exception {
    rolling(TestDatabases::mariaDb);
  }

  /** A server with the stop's grace this test gives the hand-back. */
  private static ServerNode node(TestDatabase db) throws Exception {
    // A hand-back gets what the grace leaves after the calls drained: room for it on a loaded
    // machine, within ServerNode.stop's 30 s.
    return new ServerNode(db, "--shutdown-grace", "20s");
  }

  /** Every server's callers and what they received. */
  private static final class Load implements AutoCloseable {
    final List<AtomicReference<ServerNode>> nodes = new ArrayList<>();
    final ExecutorService callers = Executors.newFixedThreadPool(SERVERS * 3);
    final AtomicBoolean stop = new AtomicBoolean();
    final ConcurrentLinkedQueue<long[]> received = new ConcurrentLinkedQueue<>();
    final AtomicLong ids = new AtomicLong();
    final List<Future<?>> running = new ArrayList<>();

    Load(TestDatabase db) throws Exception {
      for (int s = 0; s < SERVERS; s++) {
        nodes.add(new AtomicReference<>(node(db)));
      }
      for (int c = 0; c < SERVERS * 3; c++) {
        AtomicReference<ServerNode> node = nodes.get(c % SERVERS);
        int kind = c / SERVERS;
        running.add(
            callers.submit(
                () -> {
                  received.add(call(node, kind));
                  return null;
                }));
      }
    }

    /** Calls one server until stopped: kind 0 NextId, 1 batches of 7, 2 ReserveIds of 40. */
    private long[] call(AtomicReference<ServerNode> node, int kind) throws InterruptedException {
      long[] out = new long[1 << 12];
      int n = 0;
      while (!stop.get()) {
        try {
          long[] got = take(node.get().stub(3), kind);
          if (n + got.length > out.length) {
            out = Arrays.copyOf(out, Math.max(out.length * 2, n + got.length));
          }
          System.arraycopy(got, 0, out, n, got.length);
          n += got.length;
          ids.addAndGet(got.length);
        } catch (StatusRuntimeException e) {
          // A server killed or stopping under the call: what it did not answer is not counted.
          Pace.backOff();
        }
      }
      return Arrays.copyOf(out, n);
    }

    void awaitMore(long more) throws InterruptedException {
      long from = ids.get();
      assertTrue(
          Poll.until(() -> ids.get() >= from + more, Duration.ofSeconds(60)),
          "the servers serve: " + ids.get());
    }

    long[] finish() throws Exception {
      stop.set(true);
      for (Future<?> f : running) {
        f.get(1, TimeUnit.MINUTES);
      }
      return received.stream().flatMapToLong(Arrays::stream).sorted().toArray();
    }

    @Override
    public void close() throws InterruptedException {
      stop.set(true);
      callers.shutdownNow();
      for (AtomicReference<ServerNode> node : nodes) {
        node.get().kill();
      }
    }
  }

  private static long[] take(LeafServiceGrpc.LeafServiceBlockingStub stub, int kind) {
    switch (kind) {
      case 0:
        return new long[] {stub.nextId(NextIdRequest.newBuilder().setBizTag(TAG).build()).getId()};
      case 1:
        {
          List<Long> got = new ArrayList<>();
          Iterator<IdBatch> it =
              stub.nextIdBatch(NextIdBatchRequest.newBuilder().setBizTag(TAG).setCount(7).build());
          it.forEachRemaining(b -> got.addAll(b.getIdsList()));
          return got.stream().mapToLong(Long::longValue).toArray();
        }
      default:
        {
          ReservedIds r =
              stub.reserveIds(ReserveIdsRequest.newBuilder().setBizTag(TAG).setCount(40).build());
          return r.getRangesList().stream()
              .flatMapToLong(x -> java.util.stream.LongStream.range(x.getStart(), x.getEnd()))
              .toArray();
        }
    }
  }

  private static void kills(Supplier<TestDatabase> database) throws Exception {
    try (TestDatabase db = database.get()) {
      db.store(1).createTag(TAG, 1, 20, null);
      long[] all;
      try (Load load = new Load(db)) {
        for (int round = 0; round < 3; round++) {
          load.awaitMore(1_500);
          AtomicReference<ServerNode> victim = load.nodes.get(round % SERVERS);
          victim.get().kill();
          victim.set(node(db));
        }
        load.awaitMore(1_500);
        all = load.finish();
      }
      checkWithoutLoads(db, all);
      System.err.println(
          "[leaf-tests] ledger, three servers, one killed with -9 three times, on "
              + (db.isPostgres() ? "PostgreSQL" : "MariaDB")
              + ": "
              + all.length
              + " IDs, 0 repeats,"
              + " every one in the ledger");
    }
  }

  private static void rolling(Supplier<TestDatabase> database) throws Exception {
    try (TestDatabase db = database.get()) {
      db.store(1).createTag(TAG, 1, 20, null);
      db.store(1).createTag("solo", 1, 1000, null);
      long[] all;
      int continued = 0;
      try (Load load = new Load(db)) {
        for (int round = 0; round < SERVERS; round++) {
          load.awaitMore(1_000);
          AtomicReference<ServerNode> node = load.nodes.get(round);
          // "solo" is served by this server alone: its next ID after the restart follows on.
          LeafServiceGrpc.LeafServiceBlockingStub solo = node.get().stub(30);
          long last = 0;
          for (int i = 0; i < 5; i++) {
            last = solo.nextId(NextIdRequest.newBuilder().setBizTag("solo").build()).getId();
          }
          ReservedIds reserved =
              solo.reserveIds(
                  ReserveIdsRequest.newBuilder().setBizTag("solo").setCount(10).build());
          IdRange r = reserved.getRanges(reserved.getRangesCount() - 1);
          assertEquals(last + 1, reserved.getRanges(0).getStart(), "served from the buffer");
          node.get().stop();
          node.set(node(db));
          long next =
              untilAvailable(
                  node.get(),
                  () ->
                      node.get()
                          .stub(30)
                          .nextId(NextIdRequest.newBuilder().setBizTag("solo").build())
                          .getId());
          assertEquals(
              r.getEnd(),
              next,
              "the next ID follows the last issued (the reserved"
                  + " ones included) before the stop");
          IssuedRange returned =
              untilAvailable(
                  node.get(),
                  () ->
                      node.get()
                          .stub(30)
                          .whoIssued(
                              WhoIssuedRequest.newBuilder()
                                  .setBizTag("solo")
                                  .setId(r.getEnd() - 1)
                                  .build()));
          assertTrue(returned.getKind().equals("segment"), returned.toString());
          continued++;
        }
        load.awaitMore(1_000);
        all = load.finish();
      }
      checkWithoutLoads(db, all);
      System.err.println(
          "[leaf-tests] ledger, rolling restart of three servers on "
              + (db.isPostgres() ? "PostgreSQL" : "MariaDB")
              + ": "
              + all.length
              + " IDs, 0 repeats,"
              + " "
              + continued
              + " restarts continued right after the last ID issued");
    }
  }

  /**
   * {@code call}, again while the server answers UNAVAILABLE (listening, but its database check has
   * not passed yet on a loaded machine): an UNAVAILABLE answer issued nothing.
   */
  private static <T> T untilAvailable(ServerNode node, Supplier<T> call) throws Exception {
    try {
      return Poll.retry(
          call::get,
          e ->
              e instanceof StatusRuntimeException s
                  && s.getStatus().getCode() == Status.Code.UNAVAILABLE,
          Duration.ofSeconds(60));
    } catch (StatusRuntimeException e) {
      List<String> lines = node.process.lines();
      throw new AssertionError(
          "still "
              + e.getStatus()
              + " after 60 s; the server's last lines:\n"
              + String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size())),
          e);
    }
  }

  /**
   * {@link #checkAgainstTheLedger} once the load's servers are gone (a server still running may
   * record a prefetched segment after the ledger was read, and that one would hold the ID "above
   * every recorded range"), asking a server started after them, which takes nothing unasked.
   */
  private static void checkWithoutLoads(TestDatabase db, long[] all) throws Exception {
    ServerNode asker = node(db);
    try {
      checkAgainstTheLedger(db, all, asker);
    } finally {
      asker.kill();
    }
  }

  /**
   * No repeats; every ID lies in a segment or reserve record, and is not in a returned record that
   * starts above it (it was issued); a sample of them through WhoIssued.
   */
  private static void checkAgainstTheLedger(TestDatabase db, long[] all, ServerNode asker)
      throws Exception {
    assertTrue(all.length > 3_000, "the servers issued IDs: " + all.length);
    for (int i = 1; i < all.length; i++) {
      assertTrue(all[i] != all[i - 1], "ID " + all[i] + " issued twice");
    }
    TreeMap<Long, long[]> issuing = new TreeMap<>();
    long recordedEnd = 0;
    try (Connection c = DriverManager.getConnection(db.url, db.user, db.password);
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT start_id, end_id, kind FROM leaf_ledger"
                    + " WHERE biz_tag = '"
                    + TAG
                    + "'")) {
      while (rs.next()) {
        recordedEnd = Math.max(recordedEnd, rs.getLong(2));
        if (!rs.getString(3).equals("returned")) {
          issuing.put(rs.getLong(1), new long[] {rs.getLong(1), rs.getLong(2)});
        }
      }
    }
    long missing = 0;
    for (long id : all) {
      Map.Entry<Long, long[]> e = issuing.floorEntry(id);
      if (e == null || id >= e.getValue()[1]) {
        missing++;
      }
    }
    assertEquals(0, missing, "IDs received that no segment or reserve record holds");
    for (int i = 0; i < 50; i++) {
      long id = all[ThreadLocalRandom.current().nextInt(all.length)];
      IssuedRange r = whoIssued(asker, id);
      assertTrue(
          r.getStart() <= id && id < r.getEnd() && !r.getKind().equals("returned"),
          "WhoIssued(" + id + "): " + r);
    }
    // Above every recorded range (a server's unused prefetched segment, a dynamic step's
    // million, can reach far past the last ID issued): nothing holds it.
    long aboveAll = recordedEnd;
    StatusRuntimeException none =
        org.junit.jupiter.api.Assertions.assertThrows(
            StatusRuntimeException.class, () -> whoIssued(asker, aboveAll));
    assertEquals(Status.Code.NOT_FOUND, none.getStatus().getCode());
  }

  /**
   * WhoIssued of {@code id}, asked again while the server answers UNAVAILABLE: a server just
   * started on a loaded machine may not have its first connection yet, which it says so.
   */
  private static IssuedRange whoIssued(ServerNode asker, long id) throws Exception {
    return Poll.retry(
        () ->
            asker
                .stub(20)
                .whoIssued(WhoIssuedRequest.newBuilder().setBizTag(TAG).setId(id).build()),
        e ->
            e instanceof StatusRuntimeException s
                && s.getStatus().getCode() == Status.Code.UNAVAILABLE,
        java.time.Duration.ofSeconds(60));
  }
}
