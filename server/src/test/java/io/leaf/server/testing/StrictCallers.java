package io.leaf.server.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.StatusRuntimeException;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.IdBatch;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Callers of one STRICT tag through every server process, two per server (NextId, and NextIdBatch
 * of 5), each call's send and return times in one {@link OrderChecker}; per server, when the last
 * call that returned IDs was sent. {@link #close()} stops them.
 */
public final class StrictCallers implements AutoCloseable {

  public final OrderChecker checker = new OrderChecker();
  private final String tag;
  private final AtomicBoolean done = new AtomicBoolean();
  private final AtomicLongArray lastServedSent;
  private final List<Thread> threads = new ArrayList<>();
  private final List<ServerNode> nodes;

  /** Starts the callers of {@code tag} through {@code nodes}. */
  public StrictCallers(List<ServerNode> nodes, String tag) {
    this.tag = tag;
    this.nodes = nodes;
    this.lastServedSent = new AtomicLongArray(nodes.size());
    long start = System.nanoTime();
    for (int i = 0; i < nodes.size(); i++) {
      lastServedSent.set(i, start);
    }
    for (int c = 0; c < 2 * nodes.size(); c++) {
      int node = c % nodes.size();
      boolean batch = c >= nodes.size();
      Thread t = new Thread(() -> call(nodes.get(node), node, batch), "strict-caller-" + c);
      t.start();
      threads.add(t);
    }
  }

  /** Waits until {@code more} calls beyond those made so far returned IDs, at most a minute. */
  public void awaitMore(int more, String what) throws InterruptedException {
    int from = checker.calls();
    assertTrue(
        Poll.until(() -> checker.calls() >= from + more, Duration.ofSeconds(60)),
        what + ": " + (checker.calls() - from) + " of " + more + " calls within 60 s");
  }

  /**
   * Waits until a call sent through server {@code node} after {@code since} (nanoTime) returned
   * IDs, at most a minute (else fails with the server's last lines); the milliseconds from {@code
   * since} to that call's send.
   */
  public long awaitServedVia(int node, long since, String what) throws InterruptedException {
    if (!Poll.until(() -> lastServedSent.get(node) - since > 0, Duration.ofSeconds(60))) {
      List<String> lines = nodes.get(node).process.lines();
      throw new AssertionError(
          what
              + " within 60 s; server "
              + node
              + "'s last lines:\n"
              + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size())));
    }
    return TimeUnit.NANOSECONDS.toMillis(lastServedSent.get(node) - since);
  }

  /** The index of the server GetTag (asked of {@code ask}) names as the owner. */
  public int owner(ServerNode ask, List<String> addresses) throws InterruptedException {
    String[] owner = {""};
    assertTrue(
        Poll.until(
            () -> {
              try {
                owner[0] =
                    ask.stub(5)
                        .getTag(GetTagRequest.newBuilder().setBizTag(tag).build())
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

  private void call(ServerNode node, int index, boolean batch) {
    LeafServiceGrpc.LeafServiceBlockingStub stub = LeafServiceGrpc.newBlockingStub(node.channel);
    while (!done.get()) {
      long sent = System.nanoTime();
      try {
        long[] ids;
        if (batch) {
          List<Long> got = new ArrayList<>();
          Iterator<IdBatch> it =
              stub.withDeadlineAfter(2, TimeUnit.SECONDS)
                  .nextIdBatch(NextIdBatchRequest.newBuilder().setBizTag(tag).setCount(5).build());
          it.forEachRemaining(b -> got.addAll(b.getIdsList()));
          ids = got.stream().mapToLong(Long::longValue).toArray();
        } else {
          ids =
              new long[] {
                stub.withDeadlineAfter(2, TimeUnit.SECONDS)
                    .nextId(NextIdRequest.newBuilder().setBizTag(tag).build())
                    .getId()
              };
        }
        checker.record(sent, System.nanoTime(), ids);
        lastServedSent.accumulateAndGet(index, sent, Math::max);
      } catch (StatusRuntimeException e) {
        if (!Pace.backOffUnlessInterrupted()) {
          return;
        }
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    done.set(true);
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(30));
    }
  }
}
