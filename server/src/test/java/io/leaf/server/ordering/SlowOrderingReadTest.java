package io.leaf.server.ordering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.leaf.server.LeafServer;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.testing.TestServer;
import io.leaf.v1.IdBatch;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.ReserveIdsRequest;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Calls whose tag's ordering is read only after the handler returned (a slow read) are answered:
 * the plain service's cancel and ready handlers are set late, which grpc-java refuses on the call's
 * own observer.
 */
class SlowOrderingReadTest {

  /** Each read waits until the test lets it go. */
  private static final class GatedStore extends DelegatingOrderingStore {
    volatile CountDownLatch gate = new CountDownLatch(1);

    GatedStore() {
      super(new MemoryOrderingStore(InstantSource.system()));
    }

    @Override
    public LeaseRow read(String bizTag) {
      try {
        gate.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return delegate.read(bizTag);
    }
  }

  private final GatedStore orderings = new GatedStore();
  private LeafServer server;
  private ManagedChannel channel;

  @AfterEach
  void tearDown() {
    orderings.gate.countDown();
    if (channel != null) {
      channel.shutdownNow();
    }
    if (server != null) {
      server.stop();
    }
  }

  private LeafServiceGrpc.LeafServiceBlockingStub start() throws Exception {
    MemorySegmentStore store = new MemorySegmentStore();
    store.createTag("a", 1, 100, "");
    store.createTag("b", 1, 100, "");
    store.createTag("c", 1, 100, "");
    String name = InProcessServerBuilder.generateName();
    server =
        TestServer.inProcess(name)
            .store(store)
            .orderings(new OrderingSource(orderings, a -> null))
            .start();
    channel = InProcessChannelBuilder.forName(name).build();
    return LeafServiceGrpc.newBlockingStub(channel);
  }

  @Test
  void nextIdBatchAndReserve_orderingReadAfterHandlerReturned_answered() throws Exception {
    LeafServiceGrpc.LeafServiceBlockingStub stub = start();
    List<Thread> calls = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    long[] got = new long[3];
    calls.add(
        new Thread(
            () ->
                run(
                    failures,
                    () ->
                        got[0] =
                            stub.withDeadlineAfter(5, TimeUnit.SECONDS)
                                .nextId(NextIdRequest.newBuilder().setBizTag("a").build())
                                .getId())));
    calls.add(
        new Thread(
            () ->
                run(
                    failures,
                    () -> {
                      java.util.Iterator<IdBatch> it =
                          stub.withDeadlineAfter(5, TimeUnit.SECONDS)
                              .nextIdBatch(
                                  NextIdBatchRequest.newBuilder()
                                      .setBizTag("b")
                                      .setCount(3)
                                      .build());
                      it.forEachRemaining(b -> got[1] += b.getIdsCount());
                    })));
    calls.add(
        new Thread(
            () ->
                run(
                    failures,
                    () ->
                        got[2] =
                            stub.withDeadlineAfter(5, TimeUnit.SECONDS)
                                .reserveIds(
                                    ReserveIdsRequest.newBuilder()
                                        .setBizTag("c")
                                        .setCount(4)
                                        .build())
                                .getRangesCount())));
    calls.forEach(Thread::start);
    // Every call is in the server, its handler returned, before the reads may finish.
    assertTrue(
        io.leaf.server.testing.Poll.until(
            () ->
                calls.stream()
                    .allMatch(
                        t ->
                            t.getState() == Thread.State.WAITING
                                || t.getState() == Thread.State.TIMED_WAITING),
            Duration.ofSeconds(5)),
        "calls waiting");
    orderings.gate.countDown();
    for (Thread t : calls) {
      t.join();
    }
    assertEquals(List.of(), failures, "every call answered");
    assertEquals(1, got[0], "NextId");
    assertEquals(3, got[1], "NextIdBatch");
    assertTrue(got[2] >= 1, "ReserveIds ranges: " + got[2]);
  }

  @Test
  void forwardedLate_noChannelToTheOwner_unavailableNamingItNotADeadline() throws Exception {
    LeafServiceGrpc.LeafServiceBlockingStub stub = start(); // its channels: none can be made
    orderings.delegate.setOrdering("b", TagOrdering.STRICT);
    orderings.delegate.acquire("b", "elsewhere:1", 0, Duration.ofSeconds(30));
    List<String> failures = new ArrayList<>();
    List<Thread> calls =
        List.of(
            new Thread(
                () ->
                    run(
                        failures,
                        () ->
                            stub.withDeadlineAfter(20, TimeUnit.SECONDS)
                                .nextIdBatch(
                                    NextIdBatchRequest.newBuilder()
                                        .setBizTag("b")
                                        .setCount(3)
                                        .build())
                                .forEachRemaining(b -> {}))),
            new Thread(
                () ->
                    run(
                        failures,
                        () ->
                            stub.withDeadlineAfter(20, TimeUnit.SECONDS)
                                .nextId(NextIdRequest.newBuilder().setBizTag("b").build()))));
    calls.forEach(Thread::start);
    assertTrue(
        io.leaf.server.testing.Poll.until(
            () -> calls.stream().allMatch(t -> t.getState() != Thread.State.RUNNABLE),
            Duration.ofSeconds(5)),
        "calls waiting");
    orderings.gate.countDown(); // routed after the handlers returned: to elsewhere:1
    for (Thread t : calls) {
      t.join(15_000);
    }
    assertEquals(2, failures.size(), "both told: " + failures);
    for (String f : failures) {
      assertTrue(f.contains("UNAVAILABLE") && f.contains("elsewhere:1"), f);
    }
  }

  private static void run(List<String> failures, Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      synchronized (failures) {
        failures.add(e.toString());
      }
    }
  }
}
