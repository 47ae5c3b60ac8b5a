package io.leaf.server.ordering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.StatusRuntimeException;
import io.leaf.server.testing.OrderChecker;
import io.leaf.server.testing.Pace;
import io.leaf.server.testing.Poll;
import io.leaf.server.testing.ServerNode;
import io.leaf.server.testing.TcpProxy;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.IdBatch;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.Ordering;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
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
      List<ServerNode> nodes = new ArrayList<>();
      List<String> addresses = new ArrayList<>();
      try {
        for (int i = 0; i < 3; i++) {
          TcpProxy proxy = new TcpProxy("127.0.0.1", direct.getHost(), direct.getPort()).start();
          proxies.add(proxy);
          String url =
              db.url.replace(
                  direct.getHost() + ":" + direct.getPort(), "127.0.0.1:" + proxy.port());
          int port;
          try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
          }
          addresses.add("127.0.0.1:" + port);
          nodes.add(
              ServerNode.via(
                  url,
                  db,
                  "--port",
                  Integer.toString(port),
                  "--advertise-address",
                  "127.0.0.1:" + port,
                  "--tag-lease-ttl",
                  TTL_MS + "ms"));
        }
        nodes
            .get(0)
            .stub(30)
            .createTag(
                CreateTagRequest.newBuilder()
                    .setBizTag(TAG)
                    .setStep(50)
                    .setOrdering(Ordering.STRICT)
                    .build());
        OrderChecker checker = new OrderChecker();
        AtomicBoolean done = new AtomicBoolean();
        // Per server: when the last call through it that returned an ID was sent.
        AtomicLongArray lastOk = new AtomicLongArray(3);
        List<Thread> callers = new ArrayList<>();
        for (int c = 0; c < 6; c++) {
          int node = c % 3;
          boolean batch = c % 2 == 1;
          Thread t = new Thread(() -> call(nodes.get(node), node, batch, done, checker, lastOk));
          t.start();
          callers.add(t);
        }
        assertTrue(
            Poll.until(() -> checker.calls() >= 300, Duration.ofSeconds(60)),
            "calls before the cut: " + checker.calls());
        int owner = ownerOf(nodes.get(0), addresses);
        cut.apply(proxies.get(owner));
        long cutAt = System.nanoTime();
        int other = (owner + 1) % 3;
        assertTrue(
            Poll.until(() -> lastOk.get(other) - cutAt > 0, Duration.ofSeconds(30)),
            "a call sent through another server after the owner was cut off served");
        long failoverMs = (lastOk.get(other) - cutAt) / 1_000_000;
        // Cut off well past its lease, so the next owner issues while the old one is away.
        long away = cutAt + TimeUnit.MILLISECONDS.toNanos(3 * TTL_MS);
        Poll.until(() -> System.nanoTime() > away, Duration.ofSeconds(30));
        int before = checker.calls();
        heal.apply(proxies.get(owner));
        long healed = System.nanoTime();
        assertTrue(
            Poll.until(() -> lastOk.get(owner) - healed > 0, Duration.ofSeconds(30)),
            "a call sent through the old owner after it was reconnected served");
        long backMs = (lastOk.get(owner) - healed) / 1_000_000;
        assertTrue(
            Poll.until(() -> checker.calls() >= before + 300, Duration.ofSeconds(60)),
            "calls after the cut ended: " + (checker.calls() - before));
        done.set(true);
        for (Thread t : callers) {
          t.join();
        }
        System.out.printf(
            "strict partition (%s): %d calls, %d violations, %d repeats; served through another"
                + " server %d ms after the cut, through the old owner %d ms after it ended"
                + " (TTL %d ms)%n",
            db.isPostgres() ? "PostgreSQL, reset" : "MariaDB, silent",
            checker.calls(),
            checker.violations(),
            checker.repeats(),
            failoverMs,
            backMs,
            TTL_MS);
        assertEquals(0, checker.repeats(), "no ID twice in " + checker.calls() + " calls");
        assertEquals(
            0, checker.violations(), "real-time order kept in " + checker.calls() + " calls");
      } finally {
        for (ServerNode n : nodes) {
          n.kill();
        }
        for (TcpProxy p : proxies) {
          p.close();
        }
      }
    }
  }

  /** The index of the server GetTag (asked of {@code ask}) names as the owner. */
  private static int ownerOf(ServerNode ask, List<String> addresses) throws InterruptedException {
    String[] owner = {""};
    assertTrue(
        Poll.until(
            () -> {
              try {
                owner[0] =
                    ask.stub(5)
                        .getTag(GetTagRequest.newBuilder().setBizTag(TAG).build())
                        .getOwner();
              } catch (StatusRuntimeException e) {
                return false;
              }
              return addresses.contains(owner[0]);
            },
            Duration.ofSeconds(20)),
        "an owner: " + owner[0]);
    return addresses.indexOf(owner[0]);
  }

  private static void call(
      ServerNode node,
      int index,
      boolean batch,
      AtomicBoolean done,
      OrderChecker checker,
      AtomicLongArray lastOk) {
    LeafServiceGrpc.LeafServiceBlockingStub stub = LeafServiceGrpc.newBlockingStub(node.channel);
    while (!done.get()) {
      long sent = System.nanoTime();
      try {
        long[] ids;
        if (batch) {
          List<Long> got = new ArrayList<>();
          Iterator<IdBatch> it =
              stub.withDeadlineAfter(2, TimeUnit.SECONDS)
                  .nextIdBatch(NextIdBatchRequest.newBuilder().setBizTag(TAG).setCount(5).build());
          it.forEachRemaining(b -> got.addAll(b.getIdsList()));
          ids = got.stream().mapToLong(Long::longValue).toArray();
        } else {
          ids =
              new long[] {
                stub.withDeadlineAfter(2, TimeUnit.SECONDS)
                    .nextId(NextIdRequest.newBuilder().setBizTag(TAG).build())
                    .getId()
              };
        }
        long returned = System.nanoTime();
        checker.record(sent, returned, ids);
        lastOk.accumulateAndGet(index, sent, Math::max);
      } catch (StatusRuntimeException e) {
        if (!Pace.backOffUnlessInterrupted()) {
          return;
        }
      }
    }
  }
}
