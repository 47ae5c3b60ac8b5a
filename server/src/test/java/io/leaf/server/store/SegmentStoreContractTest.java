package io.leaf.server.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The {@link SegmentStore} contract, run against each implementation. */
abstract class SegmentStoreContractTest {

  SegmentStore store;

  /** A store over fresh, empty storage. */
  abstract SegmentStore newStore();

  /** Releases what {@link #newStore()} opened; also called when it aborted the test. */
  void closeStore() throws Exception {}

  /**
   * Whether {@code biz_tag} compares byte for byte. A Meituan Leaf table on MySQL/MariaDB keeps its
   * case-insensitive collation, where {@code Order} and {@code order} are one row.
   */
  boolean tagsDifferingInCaseAreTwoRows() {
    return true;
  }

  @BeforeEach
  void setUp() {
    store = newStore();
  }

  @AfterEach
  void tearDown() throws Exception {
    closeStore();
  }

  @Test
  void createTag_thenGet_returnsRow() {
    TagRecord created = store.createTag("order", 1, 200, "orders");
    TagRecord read = store.getTag("order").orElseThrow();
    assertEquals(created, read);
    assertTrue(read.updateTime() > 0, "update_time is set");
  }

  @Test
  void createTag_updateTime_isNowInEpochMillis() {
    long before = System.currentTimeMillis();
    long created = store.createTag("clock", 1, 10, null).updateTime();
    long after = System.currentTimeMillis();
    // A second either side: a TIMESTAMP column written by the database's clock keeps whole seconds.
    assertTrue(
        created >= before - 1_000 && created <= after + 1_000,
        "update_time " + created + " is epoch millis between " + before + " and " + after);
    assertEquals(created, store.getTag("clock").orElseThrow().updateTime(), "read back unchanged");
  }

  @Test
  void createTag_namesDifferingInCase_areTwoTags() {
    if (!tagsDifferingInCaseAreTwoRows()) {
      store.createTag("order", 1, 10, null);
      assertThrows(
          TagAlreadyExistsException.class,
          () -> store.createTag("ORDER", 1000, 20, null),
          "a case-insensitive collation makes ORDER the row of order");
      return;
    }
    store.createTag("order", 1, 10, null);
    store.createTag("ORDER", 1000, 20, null);
    assertEquals(10, store.getTag("order").orElseThrow().step(), "order keeps its own row");
    assertEquals(20, store.getTag("ORDER").orElseThrow().step(), "ORDER is a row of its own");
    assertEquals(
        1000,
        store.nextSegment("ORDER", SegmentStore.TABLE_STEP).start(),
        "segments of ORDER come from its own row");
  }

  @Test
  void createTag_descriptionOutsideBmp_storedAndReadBack() {
    String text = "\uD83C\uDF41 leaf ids \u8BA2\u5355";
    store.createTag("unicode", 1, 10, text);
    assertEquals(
        text,
        store.getTag("unicode").orElseThrow().description(),
        "4-byte UTF-8 characters survive the round trip");
  }

  @Test
  void createTag_existing_throwsAlreadyExists() {
    store.createTag("dup", 1, 10, null);
    assertThrows(TagAlreadyExistsException.class, () -> store.createTag("dup", 5, 10, null));
    assertEquals(1, store.getTag("dup").orElseThrow().maxId(), "first row untouched");
  }

  @Test
  void getTag_missing_isEmpty() {
    assertFalse(store.getTag("nope").isPresent());
  }

  @Test
  void nextSegment_tableStep_startsAtMaxIdAndIsContiguous() {
    store.createTag("t", 1, 200, null);
    SegmentRange first = store.nextSegment("t", SegmentStore.TABLE_STEP);
    SegmentRange second = store.nextSegment("t", SegmentStore.TABLE_STEP);
    assertEquals(new SegmentRange(1, 201, 200, 200), first);
    assertEquals(new SegmentRange(201, 401, 200, 200), second);
    assertEquals(401, store.getTag("t").orElseThrow().maxId());
  }

  @Test
  void nextSegment_explicitStep_usesThatStepAndRecordsIt() {
    store.createTag("t", 1000, 10, null);
    SegmentRange r = store.nextSegment("t", 500);
    assertEquals(new SegmentRange(1000, 1500, 500, 10), r);
    assertEquals(1500, store.getTag("t").orElseThrow().maxId(), "DB records the real allocation");
  }

  @Test
  void nextSegment_missingTag_throwsNotFound() {
    assertThrows(TagNotFoundException.class, () -> store.nextSegment("ghost", 10));
  }

  @Test
  void nextSegment_wouldPassLongMax_throwsOverflowAndTakesNothing() {
    long maxId = Long.MAX_VALUE - 100;
    store.createTag("edge", maxId, 100, null);
    SegmentRange last = store.nextSegment("edge", 100);
    assertEquals(Long.MAX_VALUE, last.end(), "a segment ending exactly at 2^63-1 is allowed");
    assertThrows(IdOverflowException.class, () -> store.nextSegment("edge", 1));
    assertEquals(Long.MAX_VALUE, store.getTag("edge").orElseThrow().maxId(), "nothing wrapped");
  }

  @Test
  void updateStep_changesTableStepForNextSegment() {
    store.createTag("s", 1, 10, null);
    store.nextSegment("s", SegmentStore.TABLE_STEP);
    TagRecord updated = store.updateStep("s", 1000);
    assertEquals(1000, updated.step());
    assertEquals(
        new SegmentRange(11, 1011, 1000, 1000), store.nextSegment("s", SegmentStore.TABLE_STEP));
  }

  @Test
  void updateStep_missingTag_throwsNotFound() {
    assertThrows(TagNotFoundException.class, () -> store.updateStep("ghost", 10));
  }

  @Test
  void listTags_pagesInOrder() {
    for (String t : List.of("c", "a", "e", "b", "d")) {
      store.createTag(t, 1, 10, null);
    }
    TagPage p1 = store.listTags(null, 2);
    assertEquals(List.of("a", "b"), p1.tags().stream().map(TagRecord::bizTag).toList());
    assertTrue(p1.hasMore());
    TagPage p3 = store.listTags("d", 2);
    assertEquals(List.of("e"), p3.tags().stream().map(TagRecord::bizTag).toList());
    assertFalse(p3.hasMore());
  }

  @Tag("slow")
  @Test
  void nextSegment_twoThreadsThousandEach_disjointAndContiguous() throws Exception {
    store.createTag("race", 1, 7, null);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Callable<List<SegmentRange>> worker =
          () -> {
            List<SegmentRange> got = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
              got.add(store.nextSegment("race", i % 2 == 0 ? SegmentStore.TABLE_STEP : 3));
            }
            return got;
          };
      Future<List<SegmentRange>> a = pool.submit(worker);
      Future<List<SegmentRange>> b = pool.submit(worker);
      TreeMap<Long, SegmentRange> byStart = new TreeMap<>();
      for (SegmentRange r : concat(a.get(), b.get())) {
        SegmentRange prev = byStart.put(r.start(), r);
        assertEquals(null, prev, "two ranges start at " + r.start());
      }
      assertEquals(2000, byStart.size());
      long expectedStart = 1;
      for (SegmentRange r : byStart.values()) {
        assertEquals(expectedStart, r.start(), "ranges must be disjoint and leave no hole");
        expectedStart = r.end();
      }
      assertEquals(expectedStart, store.getTag("race").orElseThrow().maxId());
    } finally {
      pool.shutdownNow();
    }
  }

  private static List<SegmentRange> concat(List<SegmentRange> a, List<SegmentRange> b) {
    List<SegmentRange> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }
}
