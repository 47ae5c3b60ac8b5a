package io.leaf.server.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.leaf.server.LeafServer;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.store.JooqSegmentStore;
import io.leaf.server.testing.IdChecks;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import io.leaf.server.testing.TestServer;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.IdRange;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.ReserveIdsRequest;
import io.leaf.v1.ReservedIds;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Three Leaf servers, each with its own engine and connection pool, on one MariaDB database: the
 * row lock alone keeps their segments and dedicated ranges, and so their IDs, disjoint.
 */
@Tag("slow")
@Execution(ExecutionMode.CONCURRENT)
@Order(1) // among the longest: started first
@ResourceLock("MultiServerMariaDbTest")
class MultiServerMariaDbTest {

  private static final int SERVERS = 3;
  private static final int CLIENTS_PER_SERVER = 8;
  private static final int TOTAL = 300_000;
  private static final int PER_CLIENT = TOTAL / (SERVERS * CLIENTS_PER_SERVER);

  @Test
  void nextId_threeServersOneDatabaseStep50_noDuplicates() throws Exception {
    try (TestDatabase db = newDatabase()) {
      run(db, MultiServerMariaDbTest::nextIds);
    }
  }

  @Test
  void reserveIdsAndNextId_threeServersOneDatabaseStep50_noDuplicates() throws Exception {
    try (TestDatabase db = newDatabase()) {
      run(db, MultiServerMariaDbTest::mixed);
    }
  }

  /** The one database the three servers share ({@link MultiServerPostgresTest}: PostgreSQL). */
  TestDatabase newDatabase() {
    return TestDatabases.mariaDb();
  }

  /** What one client does: {@code PER_CLIENT} IDs from its server. */
  private interface Client {
    long[] take(LeafServiceGrpc.LeafServiceBlockingStub stub, int client, CyclicBarrier start)
        throws Exception;
  }

  private static long[] nextIds(
      LeafServiceGrpc.LeafServiceBlockingStub stub, int client, CyclicBarrier start)
      throws Exception {
    NextIdRequest request = NextIdRequest.newBuilder().setBizTag("shared").build();
    long[] ids = new long[PER_CLIENT];
    start.await();
    for (int i = 0; i < PER_CLIENT; i++) {
      ids[i] = stub.withDeadlineAfter(30, TimeUnit.SECONDS).nextId(request).getId();
    }
    IdChecks.assertIncreasing(ids, "client " + client + " (one server)");
    return ids;
  }

  /** Every other client reserves ranges of 1 to 500 IDs: most need a dedicated write. */
  private static long[] mixed(
      LeafServiceGrpc.LeafServiceBlockingStub stub, int client, CyclicBarrier start)
      throws Exception {
    if (client % 2 == 0) {
      return nextIds(stub, client, start);
    }
    long[] ids = new long[PER_CLIENT];
    int n = 0;
    start.await();
    for (int i = 0; n < PER_CLIENT; i++) {
      int count = Math.min(PER_CLIENT - n, 1 + (i * 37) % 500);
      ReservedIds r =
          stub.withDeadlineAfter(30, TimeUnit.SECONDS)
              .reserveIds(
                  ReserveIdsRequest.newBuilder().setBizTag("shared").setCount(count).build());
      long before = n;
      for (IdRange range : r.getRangesList()) {
        for (long id = range.getStart(); id < range.getEnd(); id++) {
          ids[n++] = id;
        }
      }
      assertEquals(count, n - before, "exact count in " + r);
      assertTrue(r.getRangesCount() <= 3, "at most 3 ranges: " + r);
    }
    return ids;
  }

  private static void run(TestDatabase db, Client work) throws Exception {
    List<LeafServer> servers = new ArrayList<>();
    List<ManagedChannel> channels = new ArrayList<>();
    ExecutorService clients = Executors.newFixedThreadPool(SERVERS * CLIENTS_PER_SERVER);
    try {
      for (int s = 0; s < SERVERS; s++) {
        JooqSegmentStore store = db.store(4);
        // A low cap keeps segments small (50 doubling to 200 IDs): about 1,500 loads from three
        // servers racing on one row, while each commit's flush keeps the test within a minute.
        LeafServer server =
            TestServer.on(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)))
                .flags("--max-wait", "30s")
                .store(store, store::createSchemaIfMissing)
                .engine(EngineConfig.DEFAULTS.withMaxStep(200).withLoaderThreads(4))
                .start();
        servers.add(server);
        channels.add(
            ManagedChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build());
      }
      LeafServiceGrpc.newBlockingStub(channels.get(0))
          .createTag(CreateTagRequest.newBuilder().setBizTag("shared").setStep(50).build());

      CyclicBarrier start = new CyclicBarrier(SERVERS * CLIENTS_PER_SERVER);
      List<Future<long[]>> results = new ArrayList<>();
      for (int c = 0; c < SERVERS * CLIENTS_PER_SERVER; c++) {
        ManagedChannel channel = channels.get(c % SERVERS);
        int client = c;
        results.add(
            clients.submit(
                () -> work.take(LeafServiceGrpc.newBlockingStub(channel), client, start)));
      }
      long[][] perClient = new long[results.size()][];
      for (int c = 0; c < results.size(); c++) {
        perClient[c] = results.get(c).get(5, TimeUnit.MINUTES);
      }
      long[] all = IdChecks.assertAllDistinct(perClient);
      long maxId =
          LeafServiceGrpc.newBlockingStub(channels.get(1))
              .getTag(GetTagRequest.newBuilder().setBizTag("shared").build())
              .getTag()
              .getMaxId();
      assertTrue(
          all[0] >= 1 && all[all.length - 1] < maxId,
          "all IDs inside what the table handed out: ["
              + all[0]
              + ", "
              + all[all.length - 1]
              + "] vs max_id "
              + maxId);
    } finally {
      clients.shutdownNow();
      channels.forEach(ManagedChannel::shutdownNow);
      servers.forEach(LeafServer::stop);
    }
  }
}
