package io.leaf.server.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Context;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.testing.ControllableStore;
import io.leaf.server.testing.IdChecks;
import io.leaf.server.testing.InProcessLeaf;
import io.leaf.server.testing.ManualBatchReader;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.NextIdResponse;
import io.leaf.v1.TagStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The server's threading and bounds through gRPC (in-process transport, direct executor, so a
 * handler that blocked would block the test thread that starts the call): waiting calls hold no
 * thread, and every bound answers RESOURCE_EXHAUSTED naming its limit and flag.
 */
// A handler that parked a thread would hang here instead of failing: bound every test.
@Timeout(60)
class ApiLimitsTest {

  private static final Duration BACKOFF = Duration.ofMillis(100);

  private final MemorySegmentStore memory = new MemorySegmentStore();
  private final ControllableStore store = new ControllableStore(memory);
  private InProcessLeaf leaf;

  @AfterEach
  void tearDown() throws Exception {
    store.release();
    if (leaf != null) {
      leaf.close();
    }
  }

  private void start(String... flags) throws Exception {
    leaf =
        new InProcessLeaf(
            store,
            com.google.common.base.Ticker.systemTicker(),
            EngineConfig.DEFAULTS.withBackoff(BACKOFF, BACKOFF),
            flags);
  }

  private static NextIdRequest nextIdOf(String tag) {
    return NextIdRequest.newBuilder().setBizTag(tag).build();
  }

  /** A unary call's outcome: its value, or its status. */
  private static final class Outcome<T> implements StreamObserver<T> {
    final CompletableFuture<T> value = new CompletableFuture<>();

    @Override
    public void onNext(T v) {
      value.complete(v);
    }

    @Override
    public void onError(Throwable t) {
      value.completeExceptionally(t);
    }

    @Override
    public void onCompleted() {}

    Status status() throws Exception {
      return value
          .handle((v, t) -> t == null ? Status.OK : Status.fromThrowable(t))
          .get(10, TimeUnit.SECONDS);
    }
  }

  private Outcome<NextIdResponse> nextIdAsync(String tag) {
    Outcome<NextIdResponse> out = new Outcome<>();
    leaf.async.nextId(nextIdOf(tag), out);
    return out;
  }

  private static void assertExhausted(Status s, String message) {
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, s.getCode(), "status: " + s);
    assertEquals(message, s.getDescription(), "the message names the limit and its flag");
  }

  /** Bounded polling for what another thread finishes (never a fixed sleep). */
  private static void await(BooleanSupplier condition, String what) {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > until) {
        throw new AssertionError("not within 10 s: " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
  }

  @Test
  void nextId_loadBlocked_callsWaitWithoutThreadAndLoadAnswersThem() throws Exception {
    start();
    memory.createTag("t", 1, 1_000, null);
    store.blockLoads();
    List<Outcome<NextIdResponse>> calls = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      calls.add(nextIdAsync("t"));
    }
    // Each call's handler ran on this thread (direct executor): had one parked, we would not be
    // here.
    assertEquals(200, leaf.allocator.waitingCalls(), "all 200 wait on the one load");
    store.release();
    long[] ids = new long[calls.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = calls.get(i).value.get(10, TimeUnit.SECONDS).getId();
    }
    assertEquals(200, IdChecks.assertAllDistinct(ids).length, "every call answered once");
    assertEquals(0, leaf.allocator.waitingCalls());
  }

  @Test
  void nextId_maxWaitingReached_resourceExhaustedAndCancelFreesSlot() throws Exception {
    start("--max-waiting", "2");
    memory.createTag("t", 1, 100, null);
    store.blockLoads();
    Context.CancellableContext cancellable = Context.current().withCancellation();
    Outcome<NextIdResponse> first = new Outcome<>();
    cancellable.run(() -> leaf.async.nextId(nextIdOf("t"), first));
    Outcome<NextIdResponse> second = nextIdAsync("t");
    assertExhausted(
        nextIdAsync("t").status(), "too many calls waiting for segments (limit 2, --max-waiting)");

    cancellable.cancel(null);
    assertEquals(Status.Code.CANCELLED, first.status().getCode());
    await(() -> leaf.allocator.waitingCalls() == 1, "the cancelled call leaves its slot");
    Outcome<NextIdResponse> third = nextIdAsync("t");
    assertFalse(third.value.isDone(), "the freed slot takes a new call");
    store.release();
    assertEquals(
        List.of(1L, 2L),
        List.of(
                second.value.get(10, TimeUnit.SECONDS).getId(),
                third.value.get(10, TimeUnit.SECONDS).getId())
            .stream()
            .sorted()
            .toList());
  }

  @Test
  void nextId_unknownTagsPastFirstLoadBudget_resourceExhaustedNeverUnavailable() throws Exception {
    start("--first-load-threads", "1", "--max-queued-first-loads", "1");
    store.blockLoads();
    Outcome<NextIdResponse> a = nextIdAsync("ghost-a");
    assertTrue(store.awaitLoadEntered(10_000), "the first load of ghost-a runs");
    Outcome<NextIdResponse> b = nextIdAsync("ghost-b");
    assertExhausted(
        nextIdAsync("ghost-c").status(),
        "too many first loads of tags this server holds no segment of are waiting for the database"
            + " (limit 1, --max-queued-first-loads)");
    store.release();
    assertEquals(Status.Code.NOT_FOUND, a.status().getCode());
    assertEquals(Status.Code.NOT_FOUND, b.status().getCode());
    assertEquals(
        Status.Code.NOT_FOUND,
        nextIdAsync("ghost-a").status().getCode(),
        "remembered missing: answered without the budget");
  }

  @Test
  void databaseCalls_queueFull_resourceExhausted() throws Exception {
    start("--db-call-threads", "1", "--max-queued-db-calls", "1");
    memory.createTag("t", 1, 100, null);
    store.blockReads();
    Outcome<TagStatus> running = new Outcome<>();
    leaf.async.getTag(GetTagRequest.newBuilder().setBizTag("t").build(), running);
    assertTrue(store.awaitReadEntered(10_000), "the one database thread is busy");
    Outcome<TagStatus> queued = new Outcome<>();
    leaf.async.getTag(GetTagRequest.newBuilder().setBizTag("t").build(), queued);
    Outcome<TagStatus> refused = new Outcome<>();
    leaf.async.getTag(GetTagRequest.newBuilder().setBizTag("t").build(), refused);
    assertExhausted(
        refused.status(),
        "too many calls waiting for the database (limit 1, --max-queued-db-calls)");
    assertEquals(
        1,
        leaf.blocking.nextId(nextIdOf("t")).getId(),
        "NextId does not queue behind the database calls");
    store.release();
    assertEquals(Status.Code.OK, running.status().getCode());
    assertEquals(Status.Code.OK, queued.status().getCode());
  }

  @Test
  void nextIdBatch_maxStreamsOpen_resourceExhaustedUntilOneEnds() throws Exception {
    start("--max-streams", "1");
    memory.createTag("t", 1, 1_000, null);
    ManualBatchReader open = new ManualBatchReader(1);
    leaf.async.nextIdBatch(batchOf("t", 1_000_000, 100), open);
    assertTrue(open.firstBatch.get(10, TimeUnit.SECONDS) > 0, "the first stream sends");
    ManualBatchReader second = new ManualBatchReader(1);
    leaf.async.nextIdBatch(batchOf("t", 10, 10), second);
    assertExhausted(
        second.closed.get(10, TimeUnit.SECONDS),
        "too many NextIdBatch streams open (limit 1, --max-streams)");

    open.cancel("done reading");
    await(() -> leaf.server.service().openStreams() == 0, "the cancelled stream is closed");
    ManualBatchReader third = new ManualBatchReader(10);
    leaf.async.nextIdBatch(batchOf("t", 10, 10), third);
    assertEquals(Status.Code.OK, third.closed.get(10, TimeUnit.SECONDS).getCode());
  }

  @Test
  void nextIdBatch_streamMemorySpent_waitsThenResourceExhaustedNamingTheFlag() throws Exception {
    // 1 MiB at 20 bytes an ID: 52,428 IDs of chunks in flight for all streams together.
    start("--max-stream-memory", "1m", "--max-wait", "300ms");
    memory.createTag("t", 1, 1_000_000, null);
    ManualBatchReader holder = new ManualBatchReader(1);
    leaf.async.nextIdBatch(batchOf("t", 1_000_000, 100_000), holder);
    assertEquals(
        52_428,
        holder.firstBatch.get(10, TimeUnit.SECONDS),
        "a short budget gives a smaller chunk, which the unread stream then holds");
    ManualBatchReader starved = new ManualBatchReader(10);
    leaf.async.nextIdBatch(batchOf("t", 10, 10), starved);
    assertExhausted(
        starved.closed.get(10, TimeUnit.SECONDS),
        "no memory for the chunks of another batch stream within --max-wait: the chunks of all"
            + " open streams hold the whole budget (52428 IDs at 20 bytes each) (limit 1048560"
            + " bytes, --max-stream-memory)");

    holder.cancel("done reading");
    ManualBatchReader after = new ManualBatchReader(10);
    leaf.async.nextIdBatch(batchOf("t", 10, 10), after);
    assertEquals(
        Status.Code.OK,
        after.closed.get(10, TimeUnit.SECONDS).getCode(),
        "the cancel gave the budget back");
  }

  @Test
  void nextIdBatch_loadBlockedMidStream_resumesFromLoadWithEveryIdOnce() throws Exception {
    start();
    memory.createTag("t", 1, 100, null);
    store.blockLoads();
    ManualBatchReader reader = new ManualBatchReader(1_000);
    leaf.async.nextIdBatch(batchOf("t", 250, 30), reader);
    assertTrue(store.awaitLoadEntered(10_000), "the stream waits on the first load");
    // The load may reach the store before the stream's registration returns on the pump thread.
    await(() -> leaf.allocator.waitingCalls() == 1, "one registration, no thread");
    store.release();
    assertEquals(Status.Code.OK, reader.closed.get(10, TimeUnit.SECONDS).getCode());
    long[] ids = reader.ids.stream().mapToLong(Long::longValue).toArray();
    assertEquals(250, ids.length);
    IdChecks.assertIncreasing(ids, "one stream");
    assertTrue(
        reader.sizes.stream().allMatch(n -> n <= 30), "chunks of at most 30: " + reader.sizes);
  }

  @Test
  void nextIdBatch_cancelledWhileWaitingOnLoad_freesWaitingAndStreamSlots() throws Exception {
    start("--max-waiting", "1", "--max-streams", "1");
    memory.createTag("t", 1, 100, null);
    store.blockLoads();
    ManualBatchReader reader = new ManualBatchReader(1);
    leaf.async.nextIdBatch(batchOf("t", 10, 10), reader);
    assertTrue(store.awaitLoadEntered(10_000), "the stream waits on the first load");
    await(() -> leaf.allocator.waitingCalls() == 1, "the stream registered its wait");
    assertExhausted(
        nextIdAsync("t").status(), "too many calls waiting for segments (limit 1, --max-waiting)");

    reader.cancel("reader gave up");
    assertEquals(Status.Code.CANCELLED, reader.closed.get(10, TimeUnit.SECONDS).getCode());
    await(
        () -> leaf.allocator.waitingCalls() == 0 && leaf.server.service().openStreams() == 0,
        "the cancel frees the waiting slot and the stream slot");
    Outcome<NextIdResponse> after = nextIdAsync("t");
    store.release();
    assertEquals(
        1, after.value.get(10, TimeUnit.SECONDS).getId(), "the cancelled stream took no ID");
  }

  @Test
  void nextIdBatch_waitPastMaxWait_unavailableAndSlotsFreed() throws Exception {
    start("--max-wait", "200ms");
    memory.createTag("t", 1, 100, null);
    store.blockLoads();
    ManualBatchReader reader = new ManualBatchReader(1);
    leaf.async.nextIdBatch(batchOf("t", 10, 10), reader);
    Status s = reader.closed.get(10, TimeUnit.SECONDS);
    assertEquals(Status.Code.UNAVAILABLE, s.getCode(), "the server's cap: " + s);
    assertTrue(s.getDescription().contains("within 200 ms"), s.toString());
    await(
        () -> leaf.server.service().openStreams() == 0 && leaf.allocator.waitingCalls() == 0,
        "stream and waiting slots freed");
  }

  private static NextIdBatchRequest batchOf(String tag, int count, int chunk) {
    return NextIdBatchRequest.newBuilder()
        .setBizTag(tag)
        .setCount(count)
        .setChunkSize(chunk)
        .build();
  }
}
