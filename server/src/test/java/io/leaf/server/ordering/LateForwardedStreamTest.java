package io.leaf.server.ordering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.testing.InProcessFleet;
import io.leaf.server.testing.Poll;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.IdBatch;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.Ordering;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A streaming call forwarded to the owner after the handler returned (the tag's row read late, as
 * on a server's first call on a tag) is answered: the forwarded call is started before anything
 * asks it for messages.
 */
class LateForwardedStreamTest {

  private final InProcessFleet fleet = new InProcessFleet("late-stream", 1000);
  private final CountDownLatch gate = new CountDownLatch(1);

  @AfterEach
  void tearDown() {
    gate.countDown();
    fleet.close();
  }

  @Test
  void nextIdBatch_throughNonOwner_rowReadAfterHandlerReturned_answered() throws Exception {
    LeafServiceGrpc.LeafServiceBlockingStub owner = fleet.start(0);
    LeafServiceGrpc.LeafServiceBlockingStub other =
        fleet.start(
            1,
            new DelegatingOrderingStore(fleet.orderings) {
              @Override
              public LeaseRow read(String bizTag) {
                try {
                  gate.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
                return delegate.read(bizTag);
              }
            });
    owner.createTag(
        CreateTagRequest.newBuilder().setBizTag("late").setOrdering(Ordering.STRICT).build());
    long last =
        Poll.retry(
            () ->
                owner
                    .withDeadlineAfter(2, TimeUnit.SECONDS)
                    .nextId(NextIdRequest.newBuilder().setBizTag("late").build())
                    .getId(),
            Duration.ofSeconds(10));
    AtomicReference<Throwable> failed = new AtomicReference<>();
    List<Long> ids = new ArrayList<>();
    Thread call =
        new Thread(
            () -> {
              try {
                other
                    .withDeadlineAfter(5, TimeUnit.SECONDS)
                    .nextIdBatch(
                        NextIdBatchRequest.newBuilder().setBizTag("late").setCount(3).build())
                    .forEachRemaining((IdBatch b) -> ids.addAll(b.getIdsList()));
              } catch (RuntimeException e) {
                failed.set(e);
              }
            });
    call.start();
    assertTrue(
        Poll.until(() -> call.getState() != Thread.State.RUNNABLE, Duration.ofSeconds(5)),
        "the call waits in the server");
    gate.countDown(); // the row is read after the handler returned: forwarded late
    call.join(10_000);
    assertEquals(null, failed.get(), "answered");
    assertEquals(3, ids.size(), "three IDs: " + ids);
    assertTrue(ids.get(0) > last, ids + " after " + last);
  }
}
