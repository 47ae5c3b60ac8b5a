package io.leaf.server.ordering;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.leaf.server.testing.Poll;
import io.leaf.server.testing.ServerNode;
import io.leaf.server.testing.StrictCallers;
import io.leaf.server.testing.StrictFleet;
import io.leaf.server.testing.TcpProxy;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Three server processes, each reaching the database through a proxy of its own, callers through
 * every one: the STRICT tag's owner cut off from its database (silently on MariaDB, reset on
 * PostgreSQL) past its lease, then reconnected. No ID twice, real-time order kept, the other
 * servers serve again, and the old owner serves again once reconnected (forwarding, or owning under
 * a new lease).
 */
@Tag("slow")
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("StrictPartitionProcessTest")
class StrictPartitionProcessTest {

  private static final long TTL_MS = 2000;
  private static final String TAG = "events";

  @Test
  void mariaDb_ownerSilentlyCutOffThenBack_orderKeptNoRepeats() throws Exception {
    partition(TestDatabases::mariaDb, TcpProxy::silence, TcpProxy::heal);
  }

  @Test
  void postgres_ownerConnectionsResetThenBack_orderKeptNoRepeats() throws Exception {
    partition(TestDatabases::postgres, TcpProxy::stop, TcpProxy::start);
  }

  private interface ProxyStep {
    void apply(TcpProxy proxy) throws Exception;
  }

  private static void partition(Supplier<TestDatabase> database, ProxyStep cut, ProxyStep heal)
      throws Exception {
    try (TestDatabase db = database.get()) {
      URI direct = URI.create(db.url.substring("jdbc:".length()));
      List<TcpProxy> proxies = new ArrayList<>();
      try {
        for (int i = 0; i < 3; i++) {
          proxies.add(new TcpProxy("127.0.0.1", direct.getHost(), direct.getPort()).start());
        }
        String hostPort = direct.getHost() + ":" + direct.getPort();
        try (StrictFleet fleet =
            new StrictFleet(
                3,
                i -> db.url.replace(hostPort, "127.0.0.1:" + proxies.get(i).port()),
                db.user,
                db.password,
                TTL_MS)) {
          fleet.createStrict(TAG, 50);
          List<ServerNode> nodes = fleet.nodes;
          List<String> addresses = fleet.addresses;
          try (StrictCallers callers = new StrictCallers(nodes, TAG)) {
            callers.awaitMore(300, "calls before the cut");
            int owner = callers.owner(nodes.get(0), addresses);
            cut.apply(proxies.get(owner));
            long cutAt = System.nanoTime();
            long failoverMs =
                callers.awaitServedVia(
                    (owner + 1) % 3, cutAt, "a call through another server after the cut served");
            // Cut off well past its lease, so the next owner issues while the old one is away.
            long away = cutAt + TimeUnit.MILLISECONDS.toNanos(3 * TTL_MS);
            Poll.until(() -> System.nanoTime() > away, Duration.ofSeconds(30));
            heal.apply(proxies.get(owner));
            long healed = System.nanoTime();
            long backMs =
                callers.awaitServedVia(
                    owner, healed, "a call through the old owner after it was reconnected served");
            callers.awaitMore(300, "calls after the cut ended");
            callers.close();
            System.out.printf(
                "strict partition (%s): %d calls, %d violations, %d repeats; served through"
                    + " another server %d ms after the cut, through the old owner %d ms after it"
                    + " ended (TTL %d ms)%n",
                db.isPostgres() ? "PostgreSQL, reset" : "MariaDB, silent",
                callers.checker.calls(),
                callers.checker.violations(),
                callers.checker.repeats(),
                failoverMs,
                backMs,
                TTL_MS);
            assertEquals(0, callers.checker.repeats(), "no ID twice");
            assertEquals(0, callers.checker.violations(), "real-time order kept");
          }
        }
      } finally {
        for (TcpProxy p : proxies) {
          p.close();
        }
      }
    }
  }
}
