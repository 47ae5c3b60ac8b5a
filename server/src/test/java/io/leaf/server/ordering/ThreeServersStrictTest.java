package io.leaf.server.ordering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.leaf.server.testing.InProcessFleet;
import io.leaf.server.testing.OrderChecker;
import io.leaf.server.testing.Pace;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.IdBatch;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.Ordering;
import io.leaf.v1.ReserveIdsRequest;
import io.leaf.v1.TagStatus;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three in-process servers on one store: callers through every server, NextId and NextIdBatch
 * mixed, the owner stopped half way. A STRICT tag keeps real-time order; a PER_SERVER one does not
 * (which shows the checker can fail).
 */
class ThreeServersStrictTest {

  private static final long TTL_MS = 1000;
  private final InProcessFleet fleet = new InProcessFleet("strict", TTL_MS);
  private final String prefix = fleet.prefix;

  @AfterEach
  void tearDown() {
    fleet.close();
  }

  private LeafServiceGrpc.LeafServiceBlockingStub start(int i, String... more) throws Exception {
    return fleet.start(i, more);
  }

  @Test
  void strictTag_ownerStopped_noViolationsNoRepeats() throws Exception {
    List<LeafServiceGrpc.LeafServiceBlockingStub> stubs = List.of(start(0), start(1), start(2));
    stubs
        .get(0)
        .createTag(
            CreateTagRequest.newBuilder()
                .setBizTag("t")
                .setStep(20)
                .setOrdering(Ordering.STRICT)
                .build());
    OrderChecker checker = run(stubs, "t", 3000, true);
    assertEquals(0, checker.repeats(), "no ID twice");
    assertEquals(
        0, checker.violations(), "real-time order kept over " + checker.calls() + " calls");
    assertTrue(checker.calls() > 100, "calls made: " + checker.calls());
    assertTrue(
        longestGapMs.get() <= TTL_MS + 2000,
        "served again within TTL + 2 s, gap " + longestGapMs.get() + " ms");
  }

  @Test
  void strictTag_reserveIdsAndGetTag_tellTheOrdering() throws Exception {
    LeafServiceGrpc.LeafServiceBlockingStub s = start(0);
    s.createTag(CreateTagRequest.newBuilder().setBizTag("r").setOrdering(Ordering.STRICT).build());
    StatusRuntimeException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            StatusRuntimeException.class,
            () -> s.reserveIds(ReserveIdsRequest.newBuilder().setBizTag("r").setCount(5).build()));
    assertEquals(Status.Code.FAILED_PRECONDITION, e.getStatus().getCode(), "refused");
    assertTrue(e.getStatus().getDescription().contains("STRICT"), "names the ordering");
    nextWithRetry(s, "r");
    TagStatus st = s.getTag(GetTagRequest.newBuilder().setBizTag("r").build());
    assertEquals(Ordering.STRICT, st.getTag().getOrdering(), "GetTag shows STRICT");
    assertEquals(prefix + "0:1", st.getOwner(), "and its owner");
  }

  @Test
  void strictTag_httpThroughEveryServer_increasingAcrossServers() throws Exception {
    int[] ports = new int[3];
    List<LeafServiceGrpc.LeafServiceBlockingStub> stubs = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
        ports[i] = s.getLocalPort();
      }
      stubs.add(start(i, "--http-port", Integer.toString(ports[i])));
    }
    stubs
        .get(0)
        .createTag(
            CreateTagRequest.newBuilder()
                .setBizTag("h")
                .setStep(10)
                .setOrdering(Ordering.STRICT)
                .build());
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    long last = 0;
    int served = 0;
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (served < 30 && System.nanoTime() < until) {
      java.net.http.HttpResponse<String> r =
          http.send(
              java.net.http.HttpRequest.newBuilder(
                      java.net.URI.create(
                          "http://127.0.0.1:" + ports[served % 3] + "/api/segment/get/h"))
                  .build(),
              java.net.http.HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        assertEquals(503, r.statusCode(), "only the wait-out refuses: " + r.body());
        Pace.backOff();
        continue;
      }
      long id = Long.parseLong(r.body());
      assertTrue(
          id > last,
          "call " + served + " on server " + (served % 3) + ": " + id + " after " + last);
      last = id;
      served++;
    }
    assertEquals(30, served, "every call served, one after another over the three servers");
    // The monitor of the server that issued them shows the tag's ordering and that it owns it.
    int owners = 0;
    for (int port : ports) {
      String json =
          http.send(
                  java.net.http.HttpRequest.newBuilder(
                          java.net.URI.create("http://127.0.0.1:" + port + "/api/monitor.json"))
                      .build(),
                  java.net.http.HttpResponse.BodyHandlers.ofString())
              .body();
      if (json.contains("\"tag\":\"h\"")) {
        assertTrue(json.contains("(this server)"), json);
        owners++;
      }
    }
    assertEquals(1, owners, "one server holds the strict tag's segments, its owner");
  }

  @Test
  void setOrdering_serversHoldPerServerSegments_callsAfterItReturnIncrease() throws Exception {
    List<LeafServiceGrpc.LeafServiceBlockingStub> stubs = List.of(start(0), start(1), start(2));
    stubs.get(0).createTag(CreateTagRequest.newBuilder().setBizTag("s").setStep(10).build());
    for (LeafServiceGrpc.LeafServiceBlockingStub s : stubs) {
      s.nextId(NextIdRequest.newBuilder().setBizTag("s").build()); // each caches a segment
    }
    io.leaf.v1.Tag set =
        stubs
            .get(1)
            .setOrdering(
                io.leaf.v1.SetOrderingRequest.newBuilder()
                    .setBizTag("s")
                    .setOrdering(Ordering.STRICT)
                    .build());
    assertEquals(Ordering.STRICT, set.getOrdering(), "SetOrdering answers with the tag");
    long last = 0;
    for (int i = 0; i < 30; i++) {
      long id = nextWithRetry(stubs.get(i % 3), "s");
      assertTrue(id > last, "call " + i + " on server " + (i % 3) + ": " + id + " after " + last);
      last = id;
    }
  }

  @Test
  void perServerTag_sameLoad_violatesOrder() throws Exception {
    List<LeafServiceGrpc.LeafServiceBlockingStub> stubs = List.of(start(0), start(1), start(2));
    stubs.get(0).createTag(CreateTagRequest.newBuilder().setBizTag("p").setStep(20).build());
    OrderChecker checker = run(stubs, "p", 2500, false);
    assertEquals(0, checker.repeats(), "no ID twice");
    assertTrue(
        checker.violations() > 0,
        "per server only: the checker sees violations in " + checker.calls() + " calls");
  }

  @Test
  void strictTag_callsDuringTheFirstWaitOut_heldAndServedNotRefused() throws Exception {
    List<LeafServiceGrpc.LeafServiceBlockingStub> stubs = List.of(start(0), start(1), start(2));
    stubs
        .get(0)
        .createTag(
            CreateTagRequest.newBuilder().setBizTag("w").setOrdering(Ordering.STRICT).build());
    // 24 callers at once through every server, while the first owner waits out its TTL: each
    // one call, no retry. Without holding, every one of them is refused.
    OrderChecker checker = new OrderChecker();
    List<Status> refused = java.util.Collections.synchronizedList(new ArrayList<>());
    java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
    List<Thread> callers = new ArrayList<>();
    for (int c = 0; c < 24; c++) {
      LeafServiceGrpc.LeafServiceBlockingStub stub = stubs.get(c % 3);
      Thread t =
          new Thread(
              () -> {
                try {
                  go.await();
                  long sent = System.nanoTime();
                  long id =
                      stub.withDeadlineAfter(4 * TTL_MS, TimeUnit.MILLISECONDS)
                          .nextId(NextIdRequest.newBuilder().setBizTag("w").build())
                          .getId();
                  checker.record(sent, System.nanoTime(), id);
                } catch (StatusRuntimeException e) {
                  refused.add(e.getStatus());
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      t.start();
      callers.add(t);
    }
    go.countDown();
    for (Thread t : callers) {
      t.join();
    }
    assertEquals(List.of(), refused, "no call refused");
    assertEquals(24, checker.calls(), "every call got an ID");
    assertEquals(0, checker.repeats(), "no ID twice");
    assertEquals(0, checker.violations(), "real-time order kept");
  }

  private final AtomicLong longestGapMs = new AtomicLong();

  private static long nextWithRetry(LeafServiceGrpc.LeafServiceBlockingStub s, String tag)
      throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try {
        return s.withDeadlineAfter(2, TimeUnit.SECONDS)
            .nextId(NextIdRequest.newBuilder().setBizTag(tag).build())
            .getId();
      } catch (StatusRuntimeException e) {
        if (System.nanoTime() > until) {
          throw e;
        }
        Pace.backOff();
      }
    }
  }

  /** Two callers per server for {@code millis}; the first server stopped half way if asked. */
  private OrderChecker run(
      List<LeafServiceGrpc.LeafServiceBlockingStub> stubs,
      String tag,
      long millis,
      boolean stopOwner)
      throws Exception {
    OrderChecker checker = new OrderChecker();
    AtomicBoolean done = new AtomicBoolean();
    AtomicLong lastSuccess = new AtomicLong(System.nanoTime());
    List<Thread> callers = new ArrayList<>();
    for (int c = 0; c < 6; c++) {
      LeafServiceGrpc.LeafServiceBlockingStub stub = stubs.get(c % 3);
      boolean batches = c % 2 == 1;
      Thread t0 =
          new Thread(
              () -> {
                while (!done.get()) {
                  long sent = System.nanoTime();
                  try {
                    long[] ids;
                    if (batches) {
                      List<Long> got = new ArrayList<>();
                      Iterator<IdBatch> it =
                          stub.withDeadlineAfter(2, TimeUnit.SECONDS)
                              .nextIdBatch(
                                  NextIdBatchRequest.newBuilder()
                                      .setBizTag(tag)
                                      .setCount(5)
                                      .build());
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
                    long returned = System.nanoTime();
                    checker.record(sent, returned, ids);
                    long prev = lastSuccess.getAndSet(returned);
                    longestGapMs.accumulateAndGet((returned - prev) / 1_000_000, Math::max);
                  } catch (StatusRuntimeException e) {
                    if (!Pace.backOffUnlessInterrupted()) {
                      return;
                    }
                  }
                }
              });
      t0.start();
      callers.add(t0);
    }
    long start = System.nanoTime();
    if (stopOwner) {
      Pace.holdMillis(millis / 2); // let the load run before the owner goes away
      fleet.server(0).stop();
    }
    while (System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(millis)) {
      Pace.holdMillis(50); // the run's length
    }
    done.set(true);
    for (Thread t : callers) {
      t.join();
    }
    return checker;
  }
}
