package io.leaf.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.StreamObserver;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.testing.ControllableStore;
import io.leaf.server.testing.FakeTicker;
import io.leaf.server.testing.InProcessLeaf;
import io.leaf.server.testing.Poll;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Readiness means "this server can issue IDs"; the database's own state is reported apart. */
class ReadinessTest {

  private final ControllableStore store = new ControllableStore(new MemorySegmentStore());
  private final FakeTicker engineClock = new FakeTicker();
  private InProcessLeaf leaf;

  @AfterEach
  void tearDown() throws Exception {
    store.heal();
    if (leaf != null) {
      leaf.close();
    }
  }

  private InProcessLeaf start(String... flags) throws Exception {
    leaf = new InProcessLeaf(store, engineClock, EngineConfig.DEFAULTS, flags);
    return leaf;
  }

  /** An open Watch of {@code service}: the statuses it hears, and how it ended (once it has). */
  private record Watch(LinkedBlockingQueue<ServingStatus> seen, CompletableFuture<Status> ended) {}

  private Watch watch(String service) {
    Watch w = new Watch(new LinkedBlockingQueue<>(), new CompletableFuture<>());
    HealthGrpc.newStub(leaf.channel)
        .watch(
            HealthCheckRequest.newBuilder().setService(service).build(),
            new StreamObserver<>() {
              @Override
              public void onNext(HealthCheckResponse r) {
                w.seen().add(r.getStatus());
              }

              @Override
              public void onError(Throwable t) {
                w.ended().complete(Status.fromThrowable(t));
              }

              @Override
              public void onCompleted() {
                w.ended().complete(Status.OK);
              }
            });
    return w;
  }

  private ServingStatus health(String service) {
    return HealthGrpc.newBlockingStub(leaf.channel)
        .check(HealthCheckRequest.newBuilder().setService(service).build())
        .getStatus();
  }

  @Test
  void databaseStops_underServingTag_readinessStaysServingAndDatabaseHealthNotServing()
      throws Exception {
    start();
    leaf.blocking.createTag(CreateTagRequest.newBuilder().setBizTag("ready").setStep(1000).build());
    NextIdRequest next = NextIdRequest.newBuilder().setBizTag("ready").build();
    assertEquals(1, leaf.blocking.nextId(next).getId());
    assertEquals(ServingStatus.SERVING, health(LeafServer.DATABASE_HEALTH));

    store.failLoads(); // the database stops answering: pings and segment loads fail
    leaf.server.checkDatabaseNow();

    assertEquals(ServingStatus.SERVING, health(""), "readiness: this pod still issues IDs");
    assertEquals(
        ServingStatus.SERVING,
        health(LeafServiceGrpc.SERVICE_NAME),
        "the service name the readiness probe asks");
    assertEquals(
        ServingStatus.NOT_SERVING,
        health(LeafServer.DATABASE_HEALTH),
        "the database's own state, for alerting");
    for (long expected = 2; expected <= 50; expected++) {
      assertEquals(expected, leaf.blocking.nextId(next).getId(), "buffered IDs keep flowing");
    }

    store.heal();
    leaf.server.checkDatabaseNow();
    assertEquals(ServingStatus.SERVING, health(LeafServer.DATABASE_HEALTH));
    assertTrue(leaf.server.databaseUp());
  }

  @Test
  void databaseDownAtStart_notServingUntilItAnswers() throws Exception {
    store.failLoads();
    start();
    assertEquals(ServingStatus.NOT_SERVING, health(""), "start-up checks have not passed");
    assertEquals(ServingStatus.NOT_SERVING, health(LeafServiceGrpc.SERVICE_NAME));

    store.heal();
    leaf.server.checkDatabaseNow();
    assertEquals(ServingStatus.SERVING, health(""));
    assertEquals(ServingStatus.SERVING, health(LeafServiceGrpc.SERVICE_NAME));
  }

  @Test
  void stop_openWatchStream_endsAtOnceInsteadOfWaitingOutTheGrace() throws Exception {
    start("--shutdown-grace", "20s");
    Watch w = watch(LeafServiceGrpc.SERVICE_NAME);
    LinkedBlockingQueue<ServingStatus> seen = w.seen();
    CompletableFuture<Status> ended = w.ended();
    assertEquals(ServingStatus.SERVING, seen.poll(5, TimeUnit.SECONDS), "the watch is open");

    long started = System.nanoTime();
    leaf.server.stop();
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

    assertTrue(
        tookMillis < 5_000, "stop took " + tookMillis + " ms with a Watch open (grace 20 s)");
    assertEquals(
        ServingStatus.NOT_SERVING,
        seen.poll(5, TimeUnit.SECONDS),
        "the watcher hears NOT_SERVING first");
    Status end = ended.get(5, TimeUnit.SECONDS);
    assertEquals(Status.Code.UNAVAILABLE, end.getCode(), "the watch ends: " + end);
  }

  @Test
  void watch_maxWatchesOpen_resourceExhaustedNamingFlagUntilOneEnds() throws Exception {
    start("--max-watches", "1");
    HealthCheckRequest all = HealthCheckRequest.newBuilder().setService("").build();
    io.grpc.Context.CancellableContext first = io.grpc.Context.current().withCancellation();
    LinkedBlockingQueue<ServingStatus> seen = first.call(() -> watch("")).seen();
    assertEquals(ServingStatus.SERVING, seen.poll(5, TimeUnit.SECONDS), "the first watch is open");

    io.grpc.StatusRuntimeException refused =
        org.junit.jupiter.api.Assertions.assertThrows(
            io.grpc.StatusRuntimeException.class,
            () ->
                HealthGrpc.newBlockingStub(leaf.channel)
                    .withDeadlineAfter(5, TimeUnit.SECONDS)
                    .watch(all)
                    .next());
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, refused.getStatus().getCode());
    assertEquals(
        "too many Health/Watch streams open (limit 1, --max-watches)",
        refused.getStatus().getDescription());

    first.cancel(null);
    // The server may not have seen the first watch's cancel yet: RESOURCE_EXHAUSTED is retried.
    ServingStatus status =
        Poll.retry(
            () ->
                HealthGrpc.newBlockingStub(leaf.channel)
                    .withDeadlineAfter(5, TimeUnit.SECONDS)
                    .watch(all)
                    .next()
                    .getStatus(),
            e ->
                e instanceof StatusRuntimeException s
                    && s.getStatus().getCode() == Status.Code.RESOURCE_EXHAUSTED,
            Duration.ofSeconds(10));
    assertEquals(ServingStatus.SERVING, status, "the freed slot serves a new watch");
  }

  @Test
  void stop_readinessNotServingFromTheStart() throws Exception {
    start();
    assertEquals(ServingStatus.SERVING, health(""));
    LinkedBlockingQueue<ServingStatus> seen = watch("").seen();
    assertEquals(ServingStatus.SERVING, seen.poll(5, TimeUnit.SECONDS));
    leaf.server.stop();
    assertEquals(
        ServingStatus.NOT_SERVING,
        seen.poll(5, TimeUnit.SECONDS),
        "readiness turns NOT_SERVING as shutdown begins");
  }

  @Test
  void databaseKnownDown_createTagAndFirstCallOnDryTag_unavailableAtOnce() throws Exception {
    start();
    leaf.blocking.createTag(CreateTagRequest.newBuilder().setBizTag("dry").setStep(10).build());
    store.failLoads();
    leaf.server.checkDatabaseNow();
    for (Executable call :
        List.<Executable>of(
            () -> leaf.blocking.createTag(CreateTagRequest.newBuilder().setBizTag("new").build()),
            () -> leaf.blocking.nextId(NextIdRequest.newBuilder().setBizTag("dry").build()))) {
      long started = System.nanoTime();
      StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call);
      assertTrue(
          System.nanoTime() - started < TimeUnit.SECONDS.toNanos(3),
          "answered without waiting out a connection timeout: " + e.getStatus());
      assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.getStatus().toString());
      assertTrue(e.getStatus().getDescription().contains("database"), e.getStatus().toString());
    }

    store.heal();
    leaf.server.checkDatabaseNow();
    // A probe load that started during the outage may still fail after the check and back off
    // once more (100 ms); once the check has seen the database answer, a later check changes
    // nothing. The engine's clock is fake here, so the retry moves it past that back-off, as time
    // would. The tag loads within a few retries, not after the outage's back-off.
    long first =
        Poll.retry(
            () -> {
              try {
                return leaf.blocking
                    .nextId(NextIdRequest.newBuilder().setBizTag("dry").build())
                    .getId();
              } catch (StatusRuntimeException e) {
                engineClock.advance(Duration.ofMillis(200));
                leaf.server.checkDatabaseNow();
                throw e;
              }
            },
            Duration.ofSeconds(10)); // the last failure is thrown if it still fails 10 s on
    assertEquals(1, first, "the dry tag loads as soon as the check sees the database answer");
  }

  @Test
  void databaseStopsAnswering_getTag_unavailableWithinOneBound() throws Exception {
    start();
    leaf.blocking.createTag(CreateTagRequest.newBuilder().setBizTag("slow").build());
    store.blockReads(); // a read that would hang as long as the database does
    long started = System.nanoTime();
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                leaf.blocking
                    .withDeadlineAfter(20, TimeUnit.SECONDS)
                    .getTag(GetTagRequest.newBuilder().setBizTag("slow").build()));
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    store.release();
    assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.getStatus().toString());
    assertTrue(
        e.getStatus().getDescription().contains("no answer within 4000 ms"),
        e.getStatus().toString());
    assertTrue(
        tookMillis >= 3_900 && tookMillis < 10_000, "answered after the bound: " + tookMillis);
  }
}
