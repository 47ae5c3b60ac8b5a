package io.leaf.server.ordering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Server;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.leaf.server.testing.OrderChecker;
import io.leaf.v1.IdBatch;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.NextIdResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * NextId calls forwarded to one owner go as batches (one call alone as a NextId): against an
 * in-process owner that answers each from one counter, a little later, so calls pile up behind the
 * batches in flight.
 */
class ForwardBatcherTest {

  private static final String TAG = "t";

  private final AtomicLong counter = new AtomicLong();
  private final AtomicInteger batches = new AtomicInteger();
  private final AtomicInteger largest = new AtomicInteger();
  private volatile Status refuse;
  private volatile Status refuseBatches;
  private final ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
  private final List<Server> servers = new ArrayList<>();
  private Forwarder forwarder;
  private int maxWaiting = 10_000;
  private volatile long answerAfterMs = 1;

  private String owner() throws Exception {
    String name = InProcessServerBuilder.generateName();
    servers.add(
        InProcessServerBuilder.forName(name)
            .directExecutor()
            .addService(
                new LeafServiceGrpc.LeafServiceImplBase() {
                  @Override
                  public void nextId(NextIdRequest req, StreamObserver<NextIdResponse> out) {
                    if (refuseBatches != null) { // calls alone after a refused batch: at once
                      out.onNext(
                          NextIdResponse.newBuilder().setId(counter.incrementAndGet()).build());
                      out.onCompleted();
                      return;
                    }
                    later.schedule(
                        () -> {
                          if (refuse != null) {
                            out.onError(refuse.asRuntimeException());
                            return;
                          }
                          out.onNext(
                              NextIdResponse.newBuilder().setId(counter.incrementAndGet()).build());
                          out.onCompleted();
                        },
                        answerAfterMs,
                        TimeUnit.MILLISECONDS);
                  }

                  @Override
                  public void nextIdBatch(NextIdBatchRequest req, StreamObserver<IdBatch> out) {
                    if (refuseBatches != null) {
                      out.onError(refuseBatches.asRuntimeException());
                      return;
                    }
                    batches.incrementAndGet();
                    largest.accumulateAndGet(req.getCount(), Math::max);
                    later.schedule(
                        () -> {
                          if (refuse != null) {
                            out.onError(refuse.asRuntimeException());
                            return;
                          }
                          // The IDs are taken when the batch is served, after it arrived.
                          IdBatch.Builder b = IdBatch.newBuilder();
                          for (int i = 0; i < req.getCount(); i++) {
                            b.addIds(counter.incrementAndGet());
                          }
                          out.onNext(b.build());
                          out.onCompleted();
                        },
                        answerAfterMs,
                        TimeUnit.MILLISECONDS);
                  }
                })
            .build()
            .start());
    forwarder =
        new Forwarder(
            Duration.ofSeconds(5),
            1000,
            maxWaiting,
            tag -> {},
            n -> {
              if (n.contains(" ")) {
                throw new IllegalArgumentException("Invalid target " + n);
              }
              return InProcessChannelBuilder.forName(n).directExecutor().build();
            });
    return name;
  }

  @AfterEach
  void tearDown() {
    if (forwarder != null) {
      forwarder.close();
    }
    servers.forEach(Server::shutdownNow);
    later.shutdownNow();
  }

  @Test
  void concurrentCalls_fewerBatches_noRepeats_realTimeOrder() throws Exception {
    String owner = owner();
    OrderChecker checker = new OrderChecker();
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> callers = new ArrayList<>();
    AtomicInteger failures = new AtomicInteger();
    for (int c = 0; c < 32; c++) {
      Thread t =
          new Thread(
              () -> {
                try {
                  go.await();
                  for (int i = 0; i < 50; i++) {
                    long sent = System.nanoTime();
                    long id = forwarder.nextId(owner, TAG, () -> {}).join();
                    checker.record(sent, System.nanoTime(), id);
                  }
                } catch (InterruptedException | CompletionException e) {
                  failures.incrementAndGet();
                }
              });
      t.start();
      callers.add(t);
    }
    go.countDown();
    for (Thread t : callers) {
      t.join();
    }
    assertEquals(0, failures.get(), "no call failed");
    assertEquals(1600, checker.calls(), "every call answered");
    assertEquals(0, checker.repeats(), "no ID twice");
    assertEquals(0, checker.violations(), "real-time order kept");
    assertTrue(batches.get() < 1600, "calls went together: " + batches.get() + " batches");
    assertTrue(largest.get() <= ForwardBatcher.MAX_BATCH, "largest batch " + largest.get());
  }

  @Test
  void ownerUnavailable_everyCallOfTheBatchToldAndOwnerForgotten() throws Exception {
    String owner = owner();
    refuse = Status.UNAVAILABLE.withDescription("gone");
    AtomicInteger told = new AtomicInteger();
    List<CompletableFuture<Long>> calls = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      calls.add(forwarder.nextId(owner, TAG, told::incrementAndGet));
    }
    for (CompletableFuture<Long> f : calls) {
      CompletionException e =
          org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class, f::join);
      Status s = Status.fromThrowable(e.getCause());
      assertEquals(Status.Code.UNAVAILABLE, s.getCode(), s.toString());
      assertTrue(
          s.getDescription().contains(owner) && s.getDescription().contains("gone"), s.toString());
    }
    assertTrue(told.get() >= 1, "the owner is forgotten: " + told.get());
  }

  @Test
  void oneCallAlone_goesAsNextId_noStream() throws Exception {
    String owner = owner();
    long id = forwarder.nextId(owner, TAG, () -> {}).get(10, TimeUnit.SECONDS);
    assertEquals(1, id, "served");
    assertEquals(0, batches.get(), "no NextIdBatch for one call");
  }

  @Test
  void cancelledCall_itsIdUnused_othersServed() throws Exception {
    String owner = owner();
    CompletableFuture<Long> first = forwarder.nextId(owner, TAG, () -> {});
    CompletableFuture<Long> gone = forwarder.nextId(owner, TAG, () -> {});
    CompletableFuture<Long> third = forwarder.nextId(owner, TAG, () -> {});
    gone.cancel(false);
    long a = first.join();
    long c = third.join();
    assertTrue(c > a, a + " then " + c);
    CompletableFuture<Long> next = forwarder.nextId(owner, TAG, () -> {});
    assertTrue(next.join() > c, "later calls still served");
  }

  @Test
  void ownerWithoutStreamsToSpare_callsGoOnAlone() throws Exception {
    String owner = owner();
    refuseBatches = Status.RESOURCE_EXHAUSTED.withDescription("too many streams (--max-streams)");
    List<CompletableFuture<Long>> calls = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      calls.add(forwarder.nextId(owner, TAG, () -> {}));
    }
    List<Long> ids = served(calls);
    assertEquals(6, ids.stream().distinct().count(), "every call served, no ID twice: " + ids);
  }

  @Test
  void waitingBeyondTheLimit_resourceExhaustedNamingTheFlag_thenServedAgain() throws Exception {
    maxWaiting = 3;
    answerAfterMs = 300;
    String owner = owner();
    List<CompletableFuture<Long>> calls = new ArrayList<>();
    for (int i = 0; i < ForwardBatcher.IN_FLIGHT + 3; i++) {
      calls.add(forwarder.nextId(owner, TAG, () -> {}));
    }
    CompletableFuture<Long> beyond = forwarder.nextId(owner, TAG, () -> {});

    java.util.concurrent.ExecutionException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            java.util.concurrent.ExecutionException.class, () -> beyond.get(10, TimeUnit.SECONDS));
    Status s = Status.fromThrowable(e.getCause());
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, s.getCode(), s.toString());
    assertTrue(s.getDescription().contains("--max-held-strict-calls"), s.toString());
    CompletableFuture<Long> otherLine = forwarder.nextId(owner, "u", () -> {});
    assertTrue(
        otherLine.get(10, TimeUnit.SECONDS) > 0,
        "another line, no batch in flight, sends while this one is at the bound");
    List<Long> ids = served(calls);
    assertEquals(calls.size(), ids.stream().distinct().count(), "the calls let in served: " + ids);
    answerAfterMs = 1;
    assertTrue(
        forwarder.nextId(owner, TAG, () -> {}).get(10, TimeUnit.SECONDS) > 0,
        "the queue emptied: a call waits again");
  }

  @Test
  void noWaitingAllowed_eachCallGoesAlone() throws Exception {
    maxWaiting = 0;
    String owner = owner();
    List<CompletableFuture<Long>> calls = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      calls.add(forwarder.nextId(owner, TAG, () -> {}));
    }
    List<Long> ids = served(calls);
    assertEquals(6, ids.stream().distinct().count(), "every call served, no ID twice: " + ids);
    assertEquals(0, batches.get(), "no batch: --max-held-strict-calls 0 holds no call");
  }

  @Test
  void ownerAddressUnusable_callsFailed_lineNotWedged() throws Exception {
    owner();
    String unusable = "no such host:1";
    for (int round = 0; round < 3; round++) {
      List<CompletableFuture<Long>> calls = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        calls.add(forwarder.nextId(unusable, TAG, () -> {}));
      }
      for (CompletableFuture<Long> f : calls) {
        java.util.concurrent.ExecutionException e =
            org.junit.jupiter.api.Assertions.assertThrows(
                java.util.concurrent.ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
        Status s = Status.fromThrowable(e.getCause());
        assertEquals(Status.Code.UNAVAILABLE, s.getCode(), s.toString());
        assertTrue(s.getDescription().contains(unusable), s.toString());
      }
    }
  }

  /** Each call's ID, waiting up to 10 s for each. */
  private static List<Long> served(List<CompletableFuture<Long>> calls) throws Exception {
    List<Long> ids = new ArrayList<>();
    for (CompletableFuture<Long> f : calls) {
      ids.add(f.get(10, TimeUnit.SECONDS));
    }
    return ids;
  }
}
