package io.leaf.server.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.leaf.server.testing.ControllableStore;
import io.leaf.server.testing.InProcessLeaf;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.IdBatch;
import io.leaf.v1.InitCacheRequest;
import io.leaf.v1.ListTagsRequest;
import io.leaf.v1.ListTagsResponse;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.Tag;
import io.leaf.v1.TagStatus;
import io.leaf.v1.UpdateStepRequest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Every RPC's happy path and every row of the API's error table, over the in-process transport. */
class LeafServiceApiTest {

  private TestDatabase db;
  private ControllableStore store;
  private InProcessLeaf leaf;

  /** The database under the store ({@link LeafServicePostgresApiTest}: PostgreSQL). */
  TestDatabase newDatabase() {
    return TestDatabases.h2();
  }

  @BeforeEach
  void setUp() throws Exception {
    db = newDatabase();
    store = new ControllableStore(db.store(4));
    leaf = new InProcessLeaf(store, "--max-batch", "1000000", "--max-wait", "2s");
  }

  @AfterEach
  void tearDown() throws Exception {
    // Null when newDatabase() skipped the test.
    if (db == null) {
      return;
    }
    leaf.close();
    db.close();
  }

  private Tag create(String tag, long maxId, int step) {
    return leaf.blocking.createTag(
        CreateTagRequest.newBuilder().setBizTag(tag).setMaxId(maxId).setStep(step).build());
  }

  private long nextId(String tag) {
    return leaf.blocking.nextId(NextIdRequest.newBuilder().setBizTag(tag).build()).getId();
  }

  private List<Long> batch(String tag, int count, int chunk) {
    List<Long> ids = new ArrayList<>();
    Iterator<IdBatch> it =
        leaf.blocking.nextIdBatch(
            NextIdBatchRequest.newBuilder()
                .setBizTag(tag)
                .setCount(count)
                .setChunkSize(chunk)
                .build());
    it.forEachRemaining(b -> ids.addAll(b.getIdsList()));
    return ids;
  }

  private static void assertStatus(Status.Code code, String messagePart, Executable call) {
    StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call);
    assertEquals(code, e.getStatus().getCode(), "status of: " + e.getStatus());
    String description = String.valueOf(e.getStatus().getDescription());
    assertTrue(
        description.contains(messagePart),
        "message should contain '" + messagePart + "': " + description);
  }

  // ---- happy paths ----

  @Test
  void createTag_defaults_maxIdOneStep200() {
    Tag t =
        leaf.blocking.createTag(
            CreateTagRequest.newBuilder().setBizTag("orders").setDescription("order ids").build());
    assertEquals("orders", t.getBizTag());
    assertEquals(1, t.getMaxId());
    assertEquals(200, t.getStep());
    assertEquals("order ids", t.getDescription());
    assertTrue(t.getUpdateTime() > 0, "update_time set");
  }

  @Test
  void nextId_defaults_firstIdsAreOneTwoThree() {
    leaf.blocking.createTag(CreateTagRequest.newBuilder().setBizTag("seq").build());
    assertEquals(List.of(1L, 2L, 3L), List.of(nextId("seq"), nextId("seq"), nextId("seq")));
  }

  @Test
  void nextId_manyCallsAcrossSegments_uniqueAndIncreasing() {
    create("many", 1, 10);
    long prev = 0;
    for (int i = 0; i < 1000; i++) {
      long id = nextId("many");
      assertTrue(id > prev, "IDs increase: " + prev + " then " + id);
      prev = id;
    }
  }

  @Test
  void initCache_twice_consumesOneSegmentOnly() {
    create("warm", 1, 100);
    TagStatus first =
        leaf.blocking.initCache(InitCacheRequest.newBuilder().setBizTag("warm").build());
    assertTrue(first.getCached(), "cached after InitCache");
    assertEquals(1, first.getCurrent().getStart());
    assertEquals(101, first.getCurrent().getEnd());
    TagStatus second =
        leaf.blocking.initCache(InitCacheRequest.newBuilder().setBizTag("warm").build());
    assertEquals(101, second.getTag().getMaxId(), "no second segment taken");
    assertEquals(1, store.loads());
    assertEquals(1, nextId("warm"));
  }

  @Test
  void nextIdBatch_countSpansSegments_streamsChunksOfAtMostChunkSize() {
    create("bulk", 1, 100);
    List<Integer> sizes = new ArrayList<>();
    List<Long> ids = new ArrayList<>();
    leaf.blocking
        .nextIdBatch(
            NextIdBatchRequest.newBuilder()
                .setBizTag("bulk")
                .setCount(2_500)
                .setChunkSize(300)
                .build())
        .forEachRemaining(
            b -> {
              sizes.add(b.getIdsCount());
              ids.addAll(b.getIdsList());
            });
    assertEquals(2_500, ids.size());
    assertEquals(2_500, new HashSet<>(ids).size(), "unique");
    assertTrue(sizes.stream().allMatch(s -> s <= 300), "chunks at most 300: " + sizes);
    for (int i = 1; i < ids.size(); i++) {
      assertTrue(ids.get(i) > ids.get(i - 1), "increasing within one stream");
    }
    assertTrue(nextId("bulk") > ids.get(ids.size() - 1), "later NextId is larger");
  }

  @Test
  void nextIdBatch_defaultChunk_isTenThousand() {
    create("chunky", 1, 1000);
    List<Integer> sizes = new ArrayList<>();
    leaf.blocking
        .nextIdBatch(NextIdBatchRequest.newBuilder().setBizTag("chunky").setCount(25_000).build())
        .forEachRemaining(b -> sizes.add(b.getIdsCount()));
    assertEquals(List.of(10_000, 10_000, 5_000), sizes);
  }

  @Test
  void updateStep_cachedTag_nextLoadUsesNewStep() {
    create("grow", 1, 10);
    nextId("grow");
    Tag updated =
        leaf.blocking.updateStep(
            UpdateStepRequest.newBuilder().setBizTag("grow").setStep(5_000).build());
    assertEquals(5_000, updated.getStep());
    for (int i = 0; i < 30; i++) {
      nextId("grow");
    }
    assertTrue(
        store.served().stream().anyMatch(r -> r.step() == 5_000),
        "a load used the new step: " + store.served());
  }

  @Test
  void getTag_cachedTag_showsSegmentsAndAccess() {
    create("look", 1, 100);
    nextId("look");
    TagStatus s = leaf.blocking.getTag(GetTagRequest.newBuilder().setBizTag("look").build());
    assertTrue(s.getCached());
    assertEquals(1, s.getCurrent().getStart());
    assertEquals(2, s.getCurrent().getCursor());
    assertEquals(100, s.getEffectiveStep());
    assertTrue(
        Math.abs(System.currentTimeMillis() - s.getLastAccessTime()) < 60_000,
        "last access is recent: " + s.getLastAccessTime());
  }

  @Test
  void getTag_uncachedTag_cachedFalse() {
    create("cold", 1, 100);
    TagStatus s = leaf.blocking.getTag(GetTagRequest.newBuilder().setBizTag("cold").build());
    assertFalse(s.getCached());
    assertFalse(s.hasCurrent());
    assertEquals(100, s.getEffectiveStep());
  }

  @Test
  void listTags_pages_coverAllTagsOnce() {
    for (int i = 0; i < 7; i++) {
      create("t" + i, 1, 10);
    }
    List<String> seen = new ArrayList<>();
    String token = "";
    int pages = 0;
    do {
      ListTagsResponse r =
          leaf.blocking.listTags(
              ListTagsRequest.newBuilder().setPageSize(3).setPageToken(token).build());
      r.getTagsList().forEach(t -> seen.add(t.getBizTag()));
      token = r.getNextPageToken();
      pages++;
    } while (!token.isEmpty());
    assertEquals(List.of("t0", "t1", "t2", "t3", "t4", "t5", "t6"), seen);
    assertEquals(3, pages);
  }

  // ---- the error table ----

  @Test
  void bizTag_invalid_invalidArgumentNamingField() {
    assertStatus(Status.Code.INVALID_ARGUMENT, "biz_tag must not be empty", () -> nextId(""));
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "at most 128 characters, got 129",
        () -> nextId("a".repeat(129)));
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "biz_tag must not hold control characters, got \"a\\u0009b\"",
        () -> nextId("a\tb"));
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "biz_tag must match [A-Za-z0-9_.:-]+, got \"x/y\"",
        () -> create("x/y", 1, 1));
    assertStatus(Status.Code.INVALID_ARGUMENT, "biz_tag", () -> create("a b", 1, 1));
    assertStatus(Status.Code.INVALID_ARGUMENT, "biz_tag", () -> batch("", 1, 1));
  }

  @Test
  void bizTag_outsideCreateTagsCharacters_servedWhenTheRowExists() {
    // 128 code points of a character outside the BMP is 256 UTF-16 chars: still within the rule.
    String wide = "\uD83C\uDF3F".repeat(128);
    assertStatus(Status.Code.NOT_FOUND, "a b", () -> nextId("a b"));
    assertStatus(
        Status.Code.NOT_FOUND,
        "",
        () -> leaf.blocking.getTag(GetTagRequest.newBuilder().setBizTag("ü").build()));
    assertStatus(Status.Code.NOT_FOUND, "", () -> nextId(wide));
    assertStatus(
        Status.Code.INVALID_ARGUMENT, "at most 128 characters, got 129", () -> nextId(wide + "x"));
  }

  @Test
  void step_outOfRange_invalidArgument() {
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "step must be between 1 and 1000000000",
        () -> create("s", 1, -5));
    assertStatus(Status.Code.INVALID_ARGUMENT, "got -5", () -> create("s", 1, -5));
    assertStatus(
        Status.Code.INVALID_ARGUMENT, "got 1000000001", () -> create("s", 1, 1_000_000_001));
    create("s", 1, 10);
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "step must be between 1 and 1000000000, got 0",
        () ->
            leaf.blocking.updateStep(
                UpdateStepRequest.newBuilder().setBizTag("s").setStep(0).build()));
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "got 2000000000",
        () ->
            leaf.blocking.updateStep(
                UpdateStepRequest.newBuilder().setBizTag("s").setStep(2_000_000_000).build()));
  }

  @Test
  void maxId_negative_invalidArgument() {
    assertStatus(
        Status.Code.INVALID_ARGUMENT, "max_id must be at least 1", () -> create("m", -1, 10));
  }

  @Test
  void description_tooLong_invalidArgument() {
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "description must be at most 256 characters, got 257",
        () ->
            leaf.blocking.createTag(
                CreateTagRequest.newBuilder()
                    .setBizTag("d")
                    .setDescription("x".repeat(257))
                    .build()));
  }

  @Test
  void description_256EmojiCodePoints_acceptedAndStoredWhole() {
    String emoji = "\uD83D\uDE00".repeat(256); // 256 code points, 512 UTF-16 units
    Tag created =
        leaf.blocking.createTag(
            CreateTagRequest.newBuilder().setBizTag("emoji").setDescription(emoji).build());
    assertEquals(emoji, created.getDescription());
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "description must be at most 256 characters, got 257",
        () ->
            leaf.blocking.createTag(
                CreateTagRequest.newBuilder()
                    .setBizTag("emoji2")
                    .setDescription(emoji + "x")
                    .build()));
  }

  @Test
  void countAndChunk_outOfRange_invalidArgument() {
    create("c", 1, 10);
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "count must be between 1 and 1000000 (--max-batch), got 0",
        () -> batch("c", 0, 10));
    assertStatus(Status.Code.INVALID_ARGUMENT, "got 1000001", () -> batch("c", 1_000_001, 10));
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "chunk_size must be between 1 and 100000",
        () -> batch("c", 10, -1));
    assertStatus(Status.Code.INVALID_ARGUMENT, "got 100001", () -> batch("c", 10, 100_001));
  }

  @Test
  void pageToken_garbage_invalidArgument() {
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "page_token",
        () ->
            leaf.blocking.listTags(
                ListTagsRequest.newBuilder().setPageToken("not-a-token!").build()));
    String crafted =
        java.util.Base64.getUrlEncoder()
            .withoutPadding()
            .encodeToString("after:\u0001".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "page_token is not a token returned by ListTags",
        () -> leaf.blocking.listTags(ListTagsRequest.newBuilder().setPageToken(crafted).build()));
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "page_size",
        () -> leaf.blocking.listTags(ListTagsRequest.newBuilder().setPageSize(5000).build()));
  }

  @Test
  void missingTag_notFoundOnEveryRpc() {
    assertStatus(Status.Code.NOT_FOUND, "biz_tag not found: ghost", () -> nextId("ghost"));
    assertStatus(Status.Code.NOT_FOUND, "ghost", () -> batch("ghost", 10, 5));
    assertStatus(
        Status.Code.NOT_FOUND,
        "ghost",
        () -> leaf.blocking.initCache(InitCacheRequest.newBuilder().setBizTag("ghost").build()));
    assertStatus(
        Status.Code.NOT_FOUND,
        "ghost",
        () ->
            leaf.blocking.updateStep(
                UpdateStepRequest.newBuilder().setBizTag("ghost").setStep(5).build()));
    assertStatus(
        Status.Code.NOT_FOUND,
        "ghost",
        () -> leaf.blocking.getTag(GetTagRequest.newBuilder().setBizTag("ghost").build()));
    assertEquals(0, leaf.allocator.cachedCount(), "a missing tag holds no memory");
  }

  @Test
  void createTag_existing_alreadyExists() {
    create("twice", 1, 10);
    assertStatus(
        Status.Code.ALREADY_EXISTS, "biz_tag already exists: twice", () -> create("twice", 1, 10));
  }

  @Test
  void nextId_segmentWouldPassLongMax_outOfRangeAndNothingWraps() {
    create("edge", Long.MAX_VALUE - 15, 10);
    List<Long> ids = new ArrayList<>();
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () -> {
              for (int i = 0; i < 100; i++) {
                ids.add(nextId("edge"));
              }
            });
    assertEquals(Status.Code.OUT_OF_RANGE, e.getStatus().getCode(), e.getStatus().toString());
    assertEquals(10, ids.size(), "one full segment issued, then refused: " + ids);
    assertTrue(ids.stream().allMatch(id -> id > 0), "nothing wrapped: " + ids);
  }

  @Test
  void nextId_databaseDownAndNothingBuffered_unavailableNamingDatabase() {
    create("down", 1, 10);
    store.failLoads();
    assertStatus(Status.Code.UNAVAILABLE, "database", () -> nextId("down"));
  }

  @Test
  void nextId_realPoolClosed_unavailableNamingDatabase() throws Exception {
    create("closed", 1, 10);
    db.close();
    assertStatus(Status.Code.UNAVAILABLE, "database unavailable", () -> nextId("closed"));
  }

  @Test
  void nextId_serverWaitCapPasses_unavailable() {
    create("capped", 1, 10);
    store.blockLoads();
    try {
      assertStatus(Status.Code.UNAVAILABLE, "within 2000 ms", () -> nextId("capped"));
    } finally {
      store.release();
    }
  }

  @Test
  void nextId_serverShuttingDown_unavailable() {
    create("bye", 1, 10);
    leaf.allocator.close();
    assertStatus(Status.Code.UNAVAILABLE, "shutting down", () -> nextId("bye"));
  }

  @Test
  void nextId_unexpectedFailure_internalWithShortMessage() {
    create("boom", 1, 10);
    store.failLoadsWith(new NullPointerException("secret detail"));
    StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> nextId("boom"));
    assertEquals(Status.Code.INTERNAL, e.getStatus().getCode());
    assertFalse(
        String.valueOf(e.getStatus().getDescription()).contains("secret"),
        "details stay in the server log: " + e.getStatus());
  }

  @Test
  void errors_serverKeepsServing() {
    assertThrows(StatusRuntimeException.class, () -> nextId("no such"));
    assertThrows(StatusRuntimeException.class, () -> nextId("ghost"));
    create("alive", 1, 10);
    Set<Long> ids = new HashSet<>(List.of(nextId("alive"), nextId("alive")));
    assertEquals(Set.of(1L, 2L), ids);
  }
}
