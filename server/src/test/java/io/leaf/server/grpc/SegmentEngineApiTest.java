package io.leaf.server.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.engine.TagSnapshot;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.testing.ControllableStore;
import io.leaf.server.testing.FakeTicker;
import io.leaf.server.testing.InProcessLeaf;
import io.leaf.server.testing.ManualBatchReader;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.Segment;
import io.leaf.v1.TagStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The segment engine seen through gRPC (in-process transport): a database outage episode,
 * NextIdBatch under client flow control and cancellation, overflow in a batch, and GetTag's view of
 * the double buffer. The error table itself is in {@link LeafServiceApiTest}.
 */
class SegmentEngineApiTest {

  private final FakeTicker ticker = new FakeTicker();
  private final MemorySegmentStore memory = new MemorySegmentStore();
  private final ControllableStore store = new ControllableStore(memory);
  private InProcessLeaf leaf;

  @BeforeEach
  void setUp() throws Exception {
    leaf =
        new InProcessLeaf(
            store,
            ticker,
            EngineConfig.DEFAULTS.withBackoff(Duration.ofMillis(100), Duration.ofSeconds(1)),
            "--max-batch",
            "10000000",
            "--max-wait",
            "10s");
  }

  @AfterEach
  void tearDown() throws Exception {
    store.release();
    leaf.close();
  }

  private void create(String tag, long maxId, int step) {
    leaf.blocking.createTag(
        CreateTagRequest.newBuilder().setBizTag(tag).setMaxId(maxId).setStep(step).build());
  }

  private long nextId(String tag) {
    return leaf.blocking.nextId(NextIdRequest.newBuilder().setBizTag(tag).build()).getId();
  }

  private TagStatus getTag(String tag) {
    return leaf.blocking.getTag(GetTagRequest.newBuilder().setBizTag(tag).build());
  }

  private static NextIdBatchRequest batchRequest(String tag, int count, int chunk) {
    return NextIdBatchRequest.newBuilder()
        .setBizTag(tag)
        .setCount(count)
        .setChunkSize(chunk)
        .build();
  }

  private static void assertIncreasing(List<Long> ids, String what) {
    for (int i = 1; i < ids.size(); i++) {
      assertTrue(ids.get(i) > ids.get(i - 1), what + ": " + ids.get(i - 1) + " then " + ids.get(i));
    }
  }

  // ---- database outage ----

  @Test
  void nextId_databaseOutage_bufferedIdsFlowThenUnavailableThenHealsWithoutRepeats() {
    create("dry", 1, 100);
    create("wet", 1, 1_000);
    List<Long> dry = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      dry.add(nextId("dry"));
    }
    List<Long> wet = new ArrayList<>(List.of(nextId("wet")));

    store.failLoads();
    StatusRuntimeException dryError = null;
    for (int i = 0; i < 1_000 && dryError == null; i++) {
      try {
        dry.add(nextId("dry"));
      } catch (StatusRuntimeException e) {
        dryError = e;
      }
    }
    assertTrue(dryError != null, "the dry tag fails once its buffer is used up");
    assertEquals(
        Status.Code.UNAVAILABLE, dryError.getStatus().getCode(), dryError.getStatus().toString());
    assertTrue(
        String.valueOf(dryError.getStatus().getDescription()).contains("database"),
        "the message names the database: " + dryError.getStatus());
    assertEquals(100, dry.size(), "every buffered ID of [1, 101) was served during the outage");

    int attempts = store.attempts();
    StatusRuntimeException again = assertThrows(StatusRuntimeException.class, () -> nextId("dry"));
    assertEquals(Status.Code.UNAVAILABLE, again.getStatus().getCode());
    assertEquals(attempts, store.attempts(), "fails fast while backing off: no new load");
    for (int i = 0; i < 500; i++) {
      wet.add(nextId("wet"));
    }

    store.heal();
    ticker.advance(Duration.ofSeconds(1));
    for (int i = 0; i < 150; i++) {
      dry.add(nextId("dry"));
    }
    assertEquals(101, dry.get(100), "the tag healed by itself, continuing at the next segment");
    assertIncreasing(dry, "dry tag across the outage");
    assertIncreasing(wet, "wet tag across the outage");
    assertEquals(250, dry.stream().distinct().count(), "no repeats");
  }

  // ---- NextIdBatch flow control and cancellation ----

  @Test
  void nextIdBatch_clientRequestsOneChunkAtATime_everyIdOnceAndServerNeverRunsAhead()
      throws Exception {
    create("slow", 1, 100);
    int count = 20_000;
    int chunk = 100;
    List<String> aheadViolations = new ArrayList<>();
    ManualBatchReader reader =
        new ManualBatchReader(
            1,
            (r, call) -> {
              // Nothing more is requested yet, so the server may not have taken more than it sent.
              long taken =
                  leaf.allocator.snapshot("slow").map(st -> st.current().cursor() - 1).orElse(0L);
              if (taken > r.ids.size() && aheadViolations.isEmpty()) {
                aheadViolations.add(
                    "server took " + taken + " IDs with " + r.ids.size() + " received");
              }
              call.request(1);
            });
    leaf.async.nextIdBatch(batchRequest("slow", count, chunk), reader);
    Status closed = reader.closed.get(60, TimeUnit.SECONDS);
    assertEquals(Status.Code.OK, closed.getCode(), "the stream ended with " + closed);
    List<Long> ids = reader.ids;
    assertEquals(List.of(), aheadViolations, "the server waits for the reader (first breach)");
    assertEquals(count, ids.size(), "every ID");
    for (int i = 0; i < count; i++) {
      assertEquals(i + 1, ids.get(i), "ID " + i + ": each exactly once, in order");
    }
  }

  @Test
  void nextIdBatch_clientCancelsMidStream_serverStopsAndLaterIdsAreFresh() throws Exception {
    memory.createTag("cancel", 1, 1_000, null);
    CountDownLatch serverSawCancel = new CountDownLatch(1);
    ServerInterceptor watch =
        new ServerInterceptor() {
          @Override
          public <Q, R> ServerCall.Listener<Q> interceptCall(
              ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
            return new ForwardingServerCallListener.SimpleForwardingServerCallListener<Q>(
                next.startCall(call, headers)) {
              @Override
              public void onCancel() {
                super.onCancel();
                serverSawCancel.countDown();
              }
            };
          }
        };
    try (InProcessLeaf watched =
        new InProcessLeaf(
            store, ticker, EngineConfig.DEFAULTS, List.of(watch), "--max-batch", "10000000")) {
      int count = 10_000_000;
      int chunk = 1_000;
      ManualBatchReader reader =
          new ManualBatchReader(
              2,
              (r, call) -> {
                if (r.ids.size() >= 2 * chunk) {
                  call.cancel("client gave up", null);
                }
              });
      watched.async.nextIdBatch(batchRequest("cancel", count, chunk), reader);
      Status closed = reader.closed.get(30, TimeUnit.SECONDS);
      assertEquals(Status.Code.CANCELLED, closed.getCode(), "the stream ended with " + closed);
      List<Long> received = reader.ids;
      assertTrue(serverSawCancel.await(30, TimeUnit.SECONDS), "the server processed the cancel");

      TagSnapshot after = watched.allocator.snapshot("cancel").orElseThrow();
      long taken = after.current().cursor() - 1;
      assertTrue(
          taken <= 3L * chunk,
          "the server took " + taken + " of the " + count + " IDs asked for, not the rest");
      long next =
          watched.blocking.nextId(NextIdRequest.newBuilder().setBizTag("cancel").build()).getId();
      assertEquals(after.current().cursor(), next, "the cursor did not move after the cancel");
      assertTrue(next > received.get(received.size() - 1), "later IDs are fresh and larger");
    }
  }

  @Test
  void nextIdBatch_spansIntoLongMax_outOfRangeAndNothingWraps() {
    create("edge", Long.MAX_VALUE - 25, 10);
    List<Long> ids = new ArrayList<>();
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                leaf.blocking
                    .nextIdBatch(batchRequest("edge", 100, 7))
                    .forEachRemaining(b -> ids.addAll(b.getIdsList())));
    assertEquals(Status.Code.OUT_OF_RANGE, e.getStatus().getCode(), e.getStatus().toString());
    assertTrue(
        String.valueOf(e.getStatus().getDescription()).contains("edge"), e.getStatus().toString());
    assertFalse(ids.isEmpty(), "the chunks before the top were streamed");
    assertIncreasing(ids, "IDs before the error");
    assertTrue(
        ids.get(0) == Long.MAX_VALUE - 25 && ids.get(ids.size() - 1) < Long.MAX_VALUE - 5,
        "all within the two segments below 2^63-1, none wrapped: " + ids);
  }

  // ---- GetTag ----

  @Test
  void getTag_preloadedTag_showsBothSegmentsEffectiveStepAndLastAccess() {
    create("look", 1, 100);
    for (int i = 0; i < 11; i++) {
      nextId("look");
    }
    TagStatus s = getTag("look");
    for (int i = 0; i < 10_000 && !s.hasNext(); i++) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
      s = getTag("look");
    }
    assertEquals(
        Segment.newBuilder().setStart(1).setEnd(101).setCursor(12).build(), s.getCurrent());
    assertEquals(
        Segment.newBuilder().setStart(101).setEnd(201).setCursor(101).build(),
        s.getNext(),
        "the preloaded segment");
    assertEquals(200, s.getEffectiveStep(), "the third load doubles the step");

    ticker.advance(Duration.ofMinutes(5));
    long before = System.currentTimeMillis();
    TagStatus later = getTag("look");
    long after = System.currentTimeMillis();
    long lastAccess = later.getLastAccessTime();
    assertTrue(
        lastAccess >= before - 300_000 && lastAccess <= after - 300_000,
        "last access 5 minutes ago by the server's ticker: " + lastAccess + " vs " + before);
  }
}
