package io.leaf.server.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.leaf.client.InvalidArgumentException;
import io.leaf.client.LeafClient;
import io.leaf.client.LeafDeadlineExceededException;
import io.leaf.client.LeafException;
import io.leaf.client.LeafUnavailableException;
import io.leaf.client.OutOfRangeException;
import io.leaf.client.TagAlreadyExistsException;
import io.leaf.client.TagNotFoundException;
import io.leaf.server.testing.ControllableStore;
import io.leaf.server.testing.IdChecks;
import io.leaf.server.testing.InProcessLeaf;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import io.leaf.v1.Tag;
import io.leaf.v1.TagStatus;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Every LeafClient method and every typed error, against the real service in-process. */
class LeafClientTest {

  private TestDatabase db;
  private ControllableStore store;
  private InProcessLeaf leaf;
  private LeafClient client;

  @BeforeEach
  void setUp() throws Exception {
    db = TestDatabases.h2();
    store = new ControllableStore(db.store(4));
    leaf = new InProcessLeaf(store, "--max-batch", "100000", "--max-wait", "2s");
    client = LeafClient.forChannel(leaf.channel).deadline(Duration.ofSeconds(10)).build();
  }

  @AfterEach
  void tearDown() throws Exception {
    client.close();
    leaf.close();
    db.close();
  }

  private static <T extends LeafException> T assertLeafError(
      Class<T> type, Status.Code code, String descriptionPart, Executable call) {
    T e = assertThrows(type, call);
    assertEquals(code, e.code(), "code of: " + e.getMessage());
    assertTrue(
        e.description().contains(descriptionPart),
        "description should contain '" + descriptionPart + "': " + e.description());
    return e;
  }

  @Test
  void createTag_newTag_returnsStoredRow() {
    Tag tag = client.createTag("order", 1000, 50, "order ids");
    assertEquals("order", tag.getBizTag());
    assertEquals(1000, tag.getMaxId());
    assertEquals(50, tag.getStep());
    assertEquals("order ids", tag.getDescription());
  }

  @Test
  void createTag_zeroesAndNullDescription_serverDefaults() {
    Tag tag = client.createTag("plain", 0, 0, null);
    assertEquals(1, tag.getMaxId(), "max_id 0 means 1");
    assertEquals(200, tag.getStep(), "step 0 means 200");
    assertEquals("", tag.getDescription());
  }

  @Test
  void nextId_newTag_oneTwoThree() {
    client.createTag("order", 0, 10, null);
    assertEquals(1, client.nextId("order"));
    assertEquals(2, client.nextId("order"));
    assertEquals(3, client.nextId("order"));
  }

  @Test
  void nextIds_spanningSegmentsAndChunks_countIdsInOrder() {
    client.createTag("order", 0, 7, null);
    assertEquals(1, client.nextId("order"));
    long[] ids = client.nextIds("order", 25_000);
    assertEquals(25_000, ids.length);
    assertEquals(2, ids[0], "the batch continues the segment");
    // Loads run side by side under the adaptive prefetch: a segment that arrives below the one in
    // use is a gap, so the run increases but need not be contiguous.
    IdChecks.assertIncreasing(ids, "a single client sees one increasing run");
  }

  @Test
  void updateStep_existingTag_nextLoadUsesIt() {
    client.createTag("order", 0, 10, null);
    Tag updated = client.updateStep("order", 500);
    assertEquals(500, updated.getStep());
    client.nextId("order");
    assertEquals(500, client.getTag("order").getEffectiveStep());
  }

  @Test
  void initCache_thenGetTag_showsCachedSegment() {
    client.createTag("order", 0, 10, null);
    assertFalse(client.getTag("order").getCached(), "not cached before InitCache");
    TagStatus status = client.initCache("order");
    assertTrue(status.getCached(), "InitCache loads the segment: " + status);
    assertEquals(1, status.getCurrent().getStart());
    assertEquals(11, status.getCurrent().getEnd());
    TagStatus again = client.getTag("order");
    assertEquals("order", again.getTag().getBizTag());
    assertEquals(status.getCurrent(), again.getCurrent(), "GetTag sees the same segment");
  }

  @Test
  void missingTag_tagNotFoundOnEveryMethod() {
    assertLeafError(
        TagNotFoundException.class, Status.Code.NOT_FOUND, "ghost", () -> client.nextId("ghost"));
    assertLeafError(
        TagNotFoundException.class,
        Status.Code.NOT_FOUND,
        "ghost",
        () -> client.nextIds("ghost", 5));
    assertLeafError(
        TagNotFoundException.class,
        Status.Code.NOT_FOUND,
        "ghost",
        () -> client.updateStep("ghost", 5));
    assertLeafError(
        TagNotFoundException.class,
        Status.Code.NOT_FOUND,
        "ghost",
        () -> client.initCache("ghost"));
    assertLeafError(
        TagNotFoundException.class, Status.Code.NOT_FOUND, "ghost", () -> client.getTag("ghost"));
  }

  @Test
  void createTag_existing_tagAlreadyExists() {
    client.createTag("twice", 0, 0, null);
    assertLeafError(
        TagAlreadyExistsException.class,
        Status.Code.ALREADY_EXISTS,
        "twice",
        () -> client.createTag("twice", 0, 0, null));
  }

  @Test
  void badArguments_invalidArgumentNamingField() {
    assertLeafError(
        InvalidArgumentException.class,
        Status.Code.INVALID_ARGUMENT,
        "biz_tag",
        () -> client.createTag("no spaces", 0, 0, null));
    assertLeafError(
        InvalidArgumentException.class,
        Status.Code.INVALID_ARGUMENT,
        "-5",
        () -> client.createTag("order", 0, -5, null));
    client.createTag("order", 0, 0, null);
    assertLeafError(
        InvalidArgumentException.class,
        Status.Code.INVALID_ARGUMENT,
        "count",
        () -> client.nextIds("order", 0));
    assertLeafError(
        InvalidArgumentException.class,
        Status.Code.INVALID_ARGUMENT,
        "200000",
        () -> client.nextIds("order", 200_000));
    assertLeafError(
        InvalidArgumentException.class,
        Status.Code.INVALID_ARGUMENT,
        "step",
        () -> client.updateStep("order", 0));
  }

  @Test
  void nextId_pastLongMax_outOfRange() {
    client.createTag("edge", Long.MAX_VALUE - 15, 10, null);
    for (int i = 0; i < 10; i++) {
      assertTrue(client.nextId("edge") > 0, "the last full segment is issued");
    }
    assertLeafError(
        OutOfRangeException.class, Status.Code.OUT_OF_RANGE, "edge", () -> client.nextId("edge"));
  }

  @Test
  void nextId_databaseDown_leafUnavailable() {
    client.createTag("down", 0, 10, null);
    store.failLoads();
    assertLeafError(
        LeafUnavailableException.class,
        Status.Code.UNAVAILABLE,
        "database",
        () -> client.nextId("down"));
  }

  @Test
  void nextId_loadSlowerThanDeadline_deadlineExceeded() {
    client.createTag("slow", 0, 10, null);
    store.blockLoads();
    try (LeafClient impatient =
        LeafClient.forChannel(leaf.channel).deadline(Duration.ofMillis(300)).build()) {
      assertThrows(LeafDeadlineExceededException.class, () -> impatient.nextId("slow"));
    } finally {
      store.release();
    }
    // The timed-out call's server side may still take ID 1 if the load lands just before its own
    // wait ends (a gap); either way the next ID comes from the loaded segment.
    long id = client.nextId("slow");
    assertTrue(id >= 1 && id <= 2, "the tag works once the load completes, got " + id);
  }

  @Test
  void nextId_unexpectedServerFailure_leafExceptionWithCode() {
    client.createTag("boom", 0, 10, null);
    store.failLoadsWith(new NullPointerException("secret detail"));
    LeafException e = assertThrows(LeafException.class, () -> client.nextId("boom"));
    assertEquals(Status.Code.INTERNAL, e.code(), e.getMessage());
    assertEquals(LeafException.class, e.getClass(), "no narrower type for INTERNAL");
  }
}
