package io.leaf.server.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.leaf.server.LeafServer;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.engine.EngineEvents;
import io.leaf.server.ledger.LedgerSettings;
import io.leaf.server.ledger.RecordedTakes;
import io.leaf.server.testing.LedgeredStore;
import io.leaf.server.testing.Pace;
import io.leaf.server.testing.PatroniCluster;
import io.leaf.server.testing.Poll;
import io.leaf.server.testing.TestServer;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdRequest;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Three Leaf servers on a three-node Patroni cluster through one multi-host URL ({@code
 * targetServerType=primary}), under load, while the leader is killed with -9 and later restarted:
 * with {@code synchronous_mode} no ID is issued twice and every server issues again; the longest
 * time each server went without issuing an ID and its share of failed calls are measured and
 * printed. The same run with asynchronous replication prints what it risks.
 */
@Tag("slow")
@Execution(ExecutionMode.CONCURRENT)
@Order(1) // among the longest: started first
@ResourceLock("patroni")
class PatroniFailoverTest {

  private static final String TAG = "patroni";
  private static final int CALLERS_PER_SERVER = 6;
  private static final Duration WARM_UP = Duration.ofSeconds(6);

  /** How long the run goes on after the new leader, before the killed node is restarted. */
  private static final Duration AFTER_FAILOVER = Duration.ofSeconds(8);

  private static final Duration AFTER_RESTART = Duration.ofSeconds(6);
  private static final Duration LEADER_LIMIT = Duration.ofSeconds(60);
  private static final Duration CALL_DEADLINE = Duration.ofSeconds(2);
  private static final Duration PAUSE_AFTER_FAILURE = Duration.ofMillis(20);

  @Test
  @Timeout(value = 6, unit = TimeUnit.MINUTES)
  void nextId_leaderKilledAndRestartedUnderLoadSynchronous_noRepeatsAndEveryServerIssuesAgain()
      throws Exception {
    PatroniCluster cluster = PatroniCluster.start(true);
    // Segments of at most 1,000 IDs: each server commits several segments a second around the
    // kill, which is what a failover can lose.
    Result r = run("synchronous_mode on, max step 1000", cluster, 1_000);
    assertEquals(0, r.repeats, "IDs issued twice: " + r.summary);
    for (Lane lane : r.lanes) {
      assertTrue(
          lane.lastSuccessNanos > r.restartNanos,
          "server " + lane.n + " issued no ID after the killed node was restarted: " + r.summary);
    }
  }

  /**
   * What asynchronous replication risks, measured: a segment whose commit the leader confirmed but
   * never shipped is handed out again by the promoted replica. Prints the repeats; asserts only
   * that every server issues again. Runs with {@code LEAF_PATRONI_ASYNC=1}.
   */
  @Test
  @Timeout(value = 6, unit = TimeUnit.MINUTES)
  void nextId_leaderKilledUnderLoadAsynchronous_repeatsMeasured() throws Exception {
    if (!"1".equals(System.getenv("LEAF_PATRONI_ASYNC"))) {
      System.err.println(
          "[leaf-tests] SKIPPED Patroni asynchronous measurement: set"
              + " LEAF_PATRONI_ASYNC=1 to run it");
      Assumptions.abort("SKIPPED: LEAF_PATRONI_ASYNC is not 1");
    }
    PatroniCluster cluster = PatroniCluster.start(false);
    Result r = run("synchronous_mode off, max step 50", cluster, 50);
    for (Lane lane : r.lanes) {
      assertTrue(
          lane.lastSuccessNanos > r.restartNanos,
          "server " + lane.n + " issued no ID after the killed node was restarted: " + r.summary);
    }
  }

  /** One Leaf server and its callers' tallies. */
  private static final class Lane {
    final int n;
    final HikariDataSource pool;
    final LeafServer server;
    final ManagedChannel channel;
    final AtomicLong calls = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    final AtomicLong lastIssueNanos = new AtomicLong();
    final AtomicLong longestGapNanos = new AtomicLong();
    final AtomicInteger rewinds = new AtomicInteger();
    volatile long lastSuccessNanos;

    Lane(int n, String url, int maxStep) throws Exception {
      this.n = n;
      pool = DataSources.create(url, PatroniCluster.USER, "", 4);
      // With the ledger, as a server runs by default: each take is a transaction of its own.
      JooqSegmentStore store =
          new JooqSegmentStore(
              pool,
              DataSources.dialectOf(url),
              InstantSource.system(),
              new RecordedTakes(LedgerSettings.on("patroni-lane-" + n), InstantSource.system()));
      server =
          TestServer.on(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)))
              .flags("--max-wait", "2s")
              .store(
                  LedgeredStore.database(store, LedgerSettings.on("patroni-lane-" + n)),
                  store::createSchemaIfMissing)
              .engine(EngineConfig.DEFAULTS.withMaxStep(maxStep))
              .events(
                  new EngineEvents() {
                    @Override
                    public void segmentRewound() {
                      rewinds.incrementAndGet();
                    }
                  })
              .start();
      channel = ManagedChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
    }

    void issued(long now) {
      long last = lastIssueNanos.getAndSet(now);
      if (last != 0) {
        longestGapNanos.accumulateAndGet(now - last, Math::max);
      }
      lastSuccessNanos = now;
    }

    void close() {
      channel.shutdownNow();
      server.stop();
      pool.close();
    }
  }

  private record Result(List<Lane> lanes, long repeats, long restartNanos, String summary) {}

  /** Growing array of one caller's IDs. */
  private static final class Ids {
    long[] ids = new long[1 << 14];
    int size;

    void add(long id) {
      if (size == ids.length) {
        ids = Arrays.copyOf(ids, size * 2);
      }
      ids[size++] = id;
    }
  }

  private static Result run(String name, PatroniCluster cluster, int maxStep) throws Exception {
    String db = cluster.createDatabase();
    List<Lane> lanes = new ArrayList<>();
    ExecutorService callers = Executors.newFixedThreadPool(3 * CALLERS_PER_SERVER);
    AtomicBoolean stop = new AtomicBoolean();
    try {
      // Each server lists its own node first, as if it ran beside it.
      for (int n = 1; n <= PatroniCluster.NODES; n++) {
        lanes.add(new Lane(n, cluster.multiHostUrl(db, n), maxStep));
      }
      LeafServiceGrpc.newBlockingStub(lanes.get(0).channel)
          .withDeadlineAfter(30, TimeUnit.SECONDS)
          .createTag(CreateTagRequest.newBuilder().setBizTag(TAG).setStep(50).build());
      List<Future<Ids>> results = new ArrayList<>();
      for (Lane lane : lanes) {
        for (int c = 0; c < CALLERS_PER_SERVER; c++) {
          results.add(callers.submit(() -> call(lane, stop)));
        }
      }
      long t0 = System.nanoTime();
      Pace.hold(WARM_UP);
      int leader = cluster.leader();
      assertTrue(leader > 0, "a leader before the kill: " + cluster.status());
      long killNanos = System.nanoTime();
      cluster.kill(leader);
      int newLeader =
          Poll.value(
                  () -> {
                    int l = cluster.leader();
                    return l > 0 && l != leader ? Optional.of(l) : Optional.<Integer>empty();
                  },
                  LEADER_LIMIT)
              .orElse(0);
      long leaderNanos = System.nanoTime();
      assertTrue(
          newLeader > 0 && newLeader != leader,
          "no new leader within "
              + LEADER_LIMIT.toSeconds()
              + "s of killing node "
              + leader
              + ": "
              + cluster.status());
      Pace.hold(AFTER_FAILOVER);
      long restartNanos = System.nanoTime();
      cluster.restart(leader);
      Pace.hold(AFTER_RESTART);
      stop.set(true);
      long total = 0;
      List<Ids> all = new ArrayList<>();
      for (Future<Ids> f : results) {
        Ids ids = f.get(1, TimeUnit.MINUTES);
        all.add(ids);
        total += ids.size;
      }
      long[] merged = new long[(int) total];
      int at = 0;
      for (Ids ids : all) {
        System.arraycopy(ids.ids, 0, merged, at, ids.size);
        at += ids.size;
      }
      Arrays.sort(merged);
      long repeats = 0;
      for (int i = 1; i < merged.length; i++) {
        if (merged[i] == merged[i - 1]) {
          repeats++;
        }
      }
      StringBuilder s =
          new StringBuilder(
              String.format(
                  Locale.ROOT,
                  "Patroni failover (%s): leader node %d killed at %.1fs, node %d leader %.1fs"
                      + " later, node %d restarted at %.1fs; %d IDs in %.1fs, %d issued twice%n",
                  name,
                  leader,
                  (killNanos - t0) / 1e9,
                  newLeader,
                  (leaderNanos - killNanos) / 1e9,
                  leader,
                  (restartNanos - t0) / 1e9,
                  total,
                  (System.nanoTime() - t0) / 1e9,
                  repeats));
      for (Lane lane : lanes) {
        s.append(
            String.format(
                Locale.ROOT,
                "  server %d (node %d listed first): %d calls, %d failed (%.3f%%), longest gap"
                    + " without an ID %.2fs, rewinds %d%n",
                lane.n,
                lane.n,
                lane.calls.get(),
                lane.failed.get(),
                100.0 * lane.failed.get() / Math.max(1, lane.calls.get()),
                lane.longestGapNanos.get() / 1e9,
                lane.rewinds.get()));
      }
      System.err.print("[leaf-tests] " + s);
      return new Result(lanes, repeats, restartNanos, s.toString());
    } finally {
      stop.set(true);
      callers.shutdownNow();
      lanes.forEach(Lane::close);
    }
  }

  private static Ids call(Lane lane, AtomicBoolean stop) throws InterruptedException {
    LeafServiceGrpc.LeafServiceBlockingStub stub = LeafServiceGrpc.newBlockingStub(lane.channel);
    NextIdRequest request = NextIdRequest.newBuilder().setBizTag(TAG).build();
    Ids ids = new Ids();
    while (!stop.get()) {
      lane.calls.incrementAndGet();
      try {
        long id =
            stub.withDeadlineAfter(CALL_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)
                .nextId(request)
                .getId();
        ids.add(id);
        lane.issued(System.nanoTime());
      } catch (StatusRuntimeException e) {
        lane.failed.incrementAndGet();
        Pace.hold(PAUSE_AFTER_FAILURE);
      }
    }
    return ids;
  }
}
