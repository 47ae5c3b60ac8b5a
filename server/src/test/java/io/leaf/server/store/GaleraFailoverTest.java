package io.leaf.server.store;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.leaf.server.LeafServer;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.testing.GaleraCluster;
import io.leaf.server.testing.IdChecks;
import io.leaf.server.wiring.LeafServerBuilder;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdRequest;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A server on a multi-host URL keeps issuing IDs when the Galera node it writes through is killed:
 * the driver fails over to the next node, and the tag's next load succeeds there.
 */
@Tag("slow")
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("galera")
class GaleraFailoverTest {

  private static final int KILLED = 3;
  private static final long RUN_AFTER_KILL_NANOS = TimeUnit.SECONDS.toNanos(5);

  @Test
  @Timeout(180)
  void nextId_nodeOfMultiHostUrlKilled_issuesAgainWithinSeconds() throws Exception {
    GaleraCluster cluster = GaleraCluster.get();
    try (GaleraCluster.Database db = cluster.createDatabase()) {
      String url = cluster.multiHostUrl(db.name, KILLED);
      // Step 10: the buffered IDs last milliseconds, so the outage a caller sees is the failover.
      ServerConfig config =
          ServerConfig.parse(
              new String[] {
                "--db-url",
                url,
                "--db-user",
                GaleraCluster.USER,
                "--db-password",
                GaleraCluster.PASSWORD,
                "--max-step",
                "10"
              },
              env -> null);
      String name = InProcessServerBuilder.generateName();
      LeafServer server =
          LeafServerBuilder.forConfig(config)
              .transport(InProcessServerBuilder.forName(name))
              .build()
              .start();
      ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
      try {
        LeafServiceGrpc.LeafServiceBlockingStub stub = LeafServiceGrpc.newBlockingStub(channel);
        stub.createTag(CreateTagRequest.newBuilder().setBizTag("failover").setStep(10).build());
        Run run = new Run(stub);
        run.until(System.nanoTime() + TimeUnit.SECONDS.toNanos(1));
        long killedAt = System.nanoTime();
        cluster.kill(KILLED);
        run.longestGapNanos = 0;
        run.until(killedAt + RUN_AFTER_KILL_NANOS);

        double gapSeconds = run.longestGapNanos / 1e9;
        System.out.printf(
            "[leaf-tests] failover: node %d killed; longest time without an ID"
                + " %.3f s; %d IDs, %d failed calls%n",
            KILLED, gapSeconds, run.count, run.failures);
        IdChecks.assertIncreasing(Arrays.copyOf(run.ids, run.count), "one caller");
        assertTrue(
            run.longestGapNanos < TimeUnit.SECONDS.toNanos(3),
            "IDs again within about a second of the node's death, took " + gapSeconds + " s");
      } finally {
        channel.shutdownNow();
        server.stop();
        try {
          cluster.rejoin(KILLED);
        } catch (GaleraCluster.QuorumLost e) {
          // The cluster's own failure after what this test measured; the next Galera test's
          // GaleraCluster.get() starts it over.
          System.err.println("[leaf-tests] " + e.getMessage());
        }
      }
    }
  }

  /** One caller taking IDs as fast as it can, recording the longest stretch without one. */
  private static final class Run {
    final LeafServiceGrpc.LeafServiceBlockingStub stub;
    long[] ids = new long[1 << 16];
    int count;
    int failures;
    long lastSuccessNanos = System.nanoTime();
    long longestGapNanos;

    Run(LeafServiceGrpc.LeafServiceBlockingStub stub) {
      this.stub = stub;
    }

    void until(long endNanos) {
      NextIdRequest request = NextIdRequest.newBuilder().setBizTag("failover").build();
      while (System.nanoTime() < endNanos) {
        try {
          long id = stub.withDeadlineAfter(2, TimeUnit.SECONDS).nextId(request).getId();
          long now = System.nanoTime();
          longestGapNanos = Math.max(longestGapNanos, now - lastSuccessNanos);
          lastSuccessNanos = now;
          if (count == ids.length) {
            ids = Arrays.copyOf(ids, ids.length * 2);
          }
          ids[count++] = id;
        } catch (StatusRuntimeException e) {
          failures++;
        }
      }
      longestGapNanos = Math.max(longestGapNanos, System.nanoTime() - lastSuccessNanos);
    }
  }
}
