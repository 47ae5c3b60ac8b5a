package io.leaf.server.ordering;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.leaf.server.testing.GaleraCluster;
import io.leaf.server.testing.Poll;
import io.leaf.server.testing.ServerNode;
import io.leaf.server.testing.StrictCallers;
import io.leaf.server.testing.StrictFleet;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Three server processes on a three-node Galera cluster, each preferring its own node, callers of a
 * STRICT tag through every one: the node under the tag's owner killed -9, then rejoined. No ID
 * twice and real-time order kept, whichever server owns the tag meanwhile.
 */
@Tag("slow")
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("galera")
class GaleraStrictTest {

  private static final long TTL_MS = 2000;
  private static final String TAG = "events";

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void ownersNodeKilledAndRejoined_orderKeptNoRepeats() throws Exception {
    GaleraCluster cluster = GaleraCluster.get();
    try (GaleraCluster.Database db = cluster.createDatabase()) {
      try (StrictFleet fleet =
          new StrictFleet(
              GaleraCluster.NODES,
              i -> cluster.multiHostUrl(db.name, i + 1),
              GaleraCluster.USER,
              GaleraCluster.PASSWORD,
              TTL_MS)) {
        fleet.createStrict(TAG, 50);
        List<ServerNode> nodes = fleet.nodes;
        List<String> addresses = fleet.addresses;
        try (StrictCallers callers = new StrictCallers(nodes, TAG)) {
          callers.awaitMore(300, "calls before the kill");
          int owner = callers.owner(nodes.get(0), addresses);
          cluster.kill(owner + 1);
          long killed = System.nanoTime();
          long againMs =
              callers.awaitServedVia(
                  (owner + 1) % 3, killed, "a call through another server after the kill served");
          long down = killed + TimeUnit.MILLISECONDS.toNanos(3 * TTL_MS);
          Poll.until(() -> System.nanoTime() > down, Duration.ofSeconds(30));
          GaleraCluster.QuorumLost lost = null;
          try {
            cluster.rejoin(owner + 1);
            callers.awaitMore(300, "calls after the node rejoined");
          } catch (GaleraCluster.QuorumLost e) {
            lost = e;
          }
          callers.close();
          System.out.printf(
              "strict tag on Galera, the owner's node %d killed -9 and rejoined: %d calls,"
                  + " %d violations, %d repeats; a call through another server served %d ms"
                  + " after the kill (TTL %d ms)%n",
              owner + 1,
              callers.checker.calls(),
              callers.checker.violations(),
              callers.checker.repeats(),
              againMs,
              TTL_MS);
          assertEquals(0, callers.checker.repeats(), "no ID twice");
          assertEquals(0, callers.checker.violations(), "real-time order kept");
          if (lost != null) {
            GaleraCluster.skip(lost.getMessage() + " (order and uniqueness held until then)");
          }
        }
      }
    }
  }
}
