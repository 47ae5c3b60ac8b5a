package io.leaf.server.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.leaf.server.testing.ControllableStore;
import io.leaf.server.testing.IdChecks;
import io.leaf.server.testing.InProcessLeaf;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.IdRange;
import io.leaf.v1.InitCacheRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.ReserveIdsRequest;
import io.leaf.v1.ReservedIds;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

/** ReserveIds over the in-process transport on H2's real store: shapes, limits and statuses. */
@Timeout(60)
class ReserveIdsApiTest {

  private TestDatabase db;
  private ControllableStore store;
  private InProcessLeaf leaf;

  /** The database under the store ({@link ReserveIdsPostgresApiTest}: PostgreSQL). */
  TestDatabase newDatabase() {
    return TestDatabases.h2();
  }

  @BeforeEach
  void setUp() throws Exception {
    db = newDatabase();
    store = new ControllableStore(db.store(4));
    leaf =
        new InProcessLeaf(
            store,
            "--max-batch",
            "1000000",
            "--max-wait",
            "5s",
            "--db-call-threads",
            "1",
            "--max-queued-db-calls",
            "1");
  }

  @AfterEach
  void tearDown() throws Exception {
    // Null when newDatabase() skipped the test.
    if (db == null) {
      return;
    }
    store.release();
    leaf.close();
    db.close();
  }

  private void create(String tag, long maxId, int step) {
    leaf.blocking.createTag(
        CreateTagRequest.newBuilder().setBizTag(tag).setMaxId(maxId).setStep(step).build());
  }

  private ReservedIds reserve(String tag, int count) {
    return leaf.blocking.reserveIds(request(tag, count));
  }

  private static ReserveIdsRequest request(String tag, int count) {
    return ReserveIdsRequest.newBuilder().setBizTag(tag).setCount(count).build();
  }

  private static long[] ids(ReservedIds r) {
    return r.getRangesList().stream()
        .flatMapToLong(x -> LongStream.range(x.getStart(), x.getEnd()))
        .toArray();
  }

  private static void assertStatus(Status.Code code, String messagePart, Executable call) {
    StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call);
    assertEquals(code, e.getStatus().getCode(), "status of: " + e.getStatus());
    String description = String.valueOf(e.getStatus().getDescription());
    assertTrue(
        description.contains(messagePart),
        "message should contain '" + messagePart + "': " + description);
  }

  private CompletableFuture<ReservedIds> reserveAsync(String tag, int count) {
    CompletableFuture<ReservedIds> f = new CompletableFuture<>();
    leaf.async
        .withDeadlineAfter(30, TimeUnit.SECONDS)
        .reserveIds(
            request(tag, count),
            new StreamObserver<>() {
              @Override
              public void onNext(ReservedIds value) {
                f.complete(value);
              }

              @Override
              public void onError(Throwable t) {
                f.completeExceptionally(t);
              }

              @Override
              public void onCompleted() {}
            });
    return f;
  }

  @Test
  void reserveIds_acrossSegmentsWithDedicatedWrite_ascendingDisjointExactCount() {
    create("t", 1, 100);
    long[] first = ids(reserve("t", 30));
    ReservedIds big = reserve("t", 100_000);
    assertTrue(big.getRangesCount() <= 3, "at most 3 ranges: " + big);
    long end = 0;
    for (IdRange r : big.getRangesList()) {
      assertTrue(
          r.getStart() < r.getEnd() && r.getStart() > end - 1, "ascending, disjoint: " + big);
      end = r.getEnd();
    }
    long[] second = ids(big);
    assertEquals(100_000, second.length, "exact count");
    assertTrue(
        store.requestedSteps().stream().anyMatch(step -> step > 100),
        "the rest came from one dedicated write, got " + store.requestedSteps());
    long maxId =
        leaf.blocking.getTag(GetTagRequest.newBuilder().setBizTag("t").build()).getTag().getMaxId();
    assertTrue(
        end <= maxId, "every range inside what the table handed out: " + end + " vs " + maxId);
    long next = leaf.blocking.nextId(NextIdRequest.newBuilder().setBizTag("t").build()).getId();
    IdChecks.assertAllDistinct(first, second, new long[] {next});
  }

  @Test
  void reserveIds_countOutOfRange_invalidArgumentNamingCount() {
    create("t", 1, 100);
    assertStatus(Status.Code.INVALID_ARGUMENT, "count", () -> reserve("t", 0));
    assertStatus(Status.Code.INVALID_ARGUMENT, "count", () -> reserve("t", -3));
    assertStatus(Status.Code.INVALID_ARGUMENT, "1000000", () -> reserve("t", 1_000_001));
    assertStatus(Status.Code.INVALID_ARGUMENT, "biz_tag", () -> reserve("bad\ttag", 1));
  }

  @Test
  void reserveIds_unknownTag_notFound() {
    assertStatus(Status.Code.NOT_FOUND, "nope", () -> reserve("nope", 5));
  }

  @Test
  void reserveIds_restWouldPassLongMax_outOfRangeAndNothingIssuedPastIt() {
    create("top", Long.MAX_VALUE - 150, 100);
    assertStatus(Status.Code.OUT_OF_RANGE, "top", () -> reserve("top", 200));
    long maxId =
        leaf.blocking
            .getTag(GetTagRequest.newBuilder().setBizTag("top").build())
            .getTag()
            .getMaxId();
    assertEquals(Long.MAX_VALUE - 50, maxId, "max_id where the one segment left it");
  }

  @Test
  void reserveIds_databaseCallsQueueFull_resourceExhaustedNamingFlag() throws Exception {
    create("t", 1, 100);
    leaf.blocking.initCache(InitCacheRequest.newBuilder().setBizTag("t").build());
    store.blockLoads();
    // The first dedicated write blocks in the store holding the one database thread, a second
    // takes the one queue slot: of five calls at least three are refused, whatever the order.
    List<CompletableFuture<ReservedIds>> calls = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      calls.add(reserveAsync("t", 1_000));
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (calls.stream().filter(CompletableFuture::isCompletedExceptionally).count() < 3) {
      assertTrue(System.nanoTime() < deadline, "three calls refused within 10 s");
      Thread.onSpinWait();
    }
    store.release();
    int refused = 0;
    for (CompletableFuture<ReservedIds> call : calls) {
      try {
        assertEquals(1_000, ids(call.get(10, TimeUnit.SECONDS)).length, "an accepted call");
      } catch (ExecutionException e) {
        StatusRuntimeException status = (StatusRuntimeException) e.getCause();
        assertEquals(Status.Code.RESOURCE_EXHAUSTED, status.getStatus().getCode(), e.toString());
        assertTrue(
            status.getStatus().getDescription().contains("--max-queued-db-calls"),
            "names the flag: " + status.getStatus());
        refused++;
      }
    }
    // 3 when the first write was running before the second call came; 4 when it still sat in
    // the one queue slot then.
    assertTrue(
        refused == 3 || refused == 4,
        "1 running + at most 1 queued, the rest refused: " + refused + " refused");
  }

  @Test
  void reserveIds_dedicatedWriteOutlastsMaxWait_serverAnswersUnavailableNamingTheFlag()
      throws Exception {
    leaf.close();
    // The caller's deadline is far away: the answer can only come from the server's own timer.
    leaf = new InProcessLeaf(store, "--max-wait", "300ms");
    create("t", 1, 100);
    leaf.blocking.initCache(InitCacheRequest.newBuilder().setBizTag("t").build());
    store.blockLoads();
    assertStatus(
        Status.Code.UNAVAILABLE,
        "--max-wait",
        () ->
            leaf.blocking.withDeadlineAfter(30, TimeUnit.SECONDS).reserveIds(request("t", 1_000)));
  }
}
