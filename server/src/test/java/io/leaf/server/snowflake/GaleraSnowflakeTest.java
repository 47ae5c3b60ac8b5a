package io.leaf.server.snowflake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.leaf.server.LeafServer;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.testing.GaleraCluster;
import io.leaf.server.testing.Poll;
import io.leaf.server.wiring.LeafServerBuilder;
import io.leaf.v1.GetWorkerRequest;
import io.leaf.v1.IdBatch;
import io.leaf.v1.NextSnowflakeIdBatchRequest;
import io.leaf.v1.NextSnowflakeIdRequest;
import io.leaf.v1.SnowflakeServiceGrpc;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Three servers, each writing its leases through a different node of a three-node Galera cluster,
 * start at once and race for two worker IDs: exactly two hold one each (the third is refused
 * RESOURCE_EXHAUSTED naming --worker-id-range), then all three serve unary and stream load and no
 * ID may come twice.
 */
@Tag("slow")
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("galera")
class GaleraSnowflakeTest {

  @Test
  @Timeout(240)
  void threeServersOnThreeNodes_raceForTwoWorkerIds_oneEachAndNoRepeats() throws Exception {
    GaleraCluster cluster = GaleraCluster.get();
    try (GaleraCluster.Database db = cluster.createDatabase()) {
      List<LeafServer> servers = new ArrayList<>();
      List<ManagedChannel> channels = new ArrayList<>();
      try {
        for (int node = 1; node <= GaleraCluster.NODES; node++) {
          ServerConfig config =
              ServerConfig.parse(
                  new String[] {
                    "--db-url",
                    cluster.nodeUrl(node, db.name),
                    "--db-user",
                    GaleraCluster.USER,
                    "--db-password=" + GaleraCluster.PASSWORD,
                    "--worker-id-range",
                    "7-8",
                    "--worker-lease-ttl",
                    "5s"
                  },
                  env -> null);
          String name = InProcessServerBuilder.generateName();
          servers.add(
              LeafServerBuilder.forConfig(config)
                  .transport(InProcessServerBuilder.forName(name))
                  .build());
          channels.add(InProcessChannelBuilder.forName(name).build());
        }
        for (LeafServer s : servers) {
          s.start();
        }
        List<SnowflakeServiceGrpc.SnowflakeServiceBlockingStub> stubs =
            channels.stream().map(SnowflakeServiceGrpc::newBlockingStub).toList();
        Set<Integer> workers = new HashSet<>();
        Poll.until(
            () -> {
              workers.clear();
              int holders = 0;
              for (var stub : stubs) {
                int w = stub.getWorker(GetWorkerRequest.getDefaultInstance()).getWorkerId();
                if (w >= 0) {
                  holders++;
                  workers.add(w);
                }
              }
              assertEquals(holders, workers.size(), "no worker ID held twice");
              return holders == 2;
            },
            Duration.ofSeconds(60));
        assertEquals(Set.of(7, 8), workers, "both worker IDs leased, each once");

        ConcurrentLinkedQueue<Long> ids = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Status.Code> refusals = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        for (var stub : stubs) {
          for (int t = 0; t < 3; t++) {
            boolean stream = t == 0;
            Thread thread =
                new Thread(
                    () -> {
                      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                      while (System.nanoTime() < until) {
                        try {
                          if (stream) {
                            var it =
                                stub.nextSnowflakeIdBatch(
                                    NextSnowflakeIdBatchRequest.newBuilder()
                                        .setCount(20_000)
                                        .build());
                            while (it.hasNext()) {
                              IdBatch b = it.next();
                              ids.addAll(b.getIdsList());
                            }
                          } else {
                            ids.add(
                                stub.nextSnowflakeId(NextSnowflakeIdRequest.getDefaultInstance())
                                    .getId());
                          }
                        } catch (StatusRuntimeException e) {
                          refusals.add(e.getStatus().getCode());
                          if (e.getStatus().getCode() != Status.Code.RESOURCE_EXHAUSTED) {
                            throw e;
                          }
                        }
                      }
                    });
            thread.start();
            threads.add(thread);
          }
        }
        for (Thread t : threads) {
          t.join(60_000);
        }
        Set<Long> seen = new HashSet<>();
        int duplicates = 0;
        for (long id : ids) {
          if (!seen.add(id)) {
            duplicates++;
          }
        }
        System.out.printf(
            "[snowflake] Galera: workers %s, %d IDs from three servers on three"
                + " nodes, %d refused (the server without a worker), %d duplicates%n",
            workers, ids.size(), refusals.size(), duplicates);
        assertEquals(0, duplicates, "no ID twice");
        assertTrue(ids.size() > 1000, "served: " + ids.size());
        assertTrue(
            refusals.stream().allMatch(c -> c == Status.Code.RESOURCE_EXHAUSTED),
            "only the server without a worker ID refuses: " + refusals);
      } finally {
        channels.forEach(ManagedChannel::shutdownNow);
        servers.forEach(LeafServer::stop);
      }
    }
  }
}
