package io.leaf.server.region;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.store.IdOverflowException;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.store.SegmentRange;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.TagRecord;
import org.junit.jupiter.api.Test;

/**
 * The region's store over a database's local values: what it shows, what it issues, and what it
 * refuses before and after checking the database's recorded region.
 */
class RegionalSegmentStoreTest {

  private static final long BASE_1_OF_2 = 1L << 62;

  private final MemorySegmentStore local = new MemorySegmentStore();
  private final MemoryRegionStore recorded = new MemoryRegionStore(local);

  private RegionalSegmentStore regional(Region region) {
    return new RegionalSegmentStore(local, region, recorded);
  }

  @Test
  void segmentsAndMaxIds_areTheDatabasesValuesPlusTheBase() {
    SegmentStore store = regional(Region.of(1, 2));

    TagRecord created = store.createTag("order", 1, 100, null);
    SegmentRange first = store.nextSegment("order", SegmentStore.TABLE_STEP);
    SegmentRange second = store.nextSegment("order", 250);

    assertEquals(BASE_1_OF_2 + 1, created.maxId(), "CreateTag shows the region's ID");
    assertEquals(
        1, local.getTag("order").orElseThrow().maxId() - 350, "the database holds local values");
    assertEquals(new SegmentRange(BASE_1_OF_2 + 1, BASE_1_OF_2 + 101, 100, 100), first);
    assertEquals(new SegmentRange(BASE_1_OF_2 + 101, BASE_1_OF_2 + 351, 250, 100), second);
    assertEquals(BASE_1_OF_2 + 351, store.getTag("order").orElseThrow().maxId());
    assertEquals(BASE_1_OF_2 + 351, store.listTags(null, 10).tags().get(0).maxId());
    assertEquals(BASE_1_OF_2 + 351, store.updateStep("order", 7).maxId());
  }

  @Test
  void createTag_maxIdWithinShareTakenAsIs_otherShareRefused() {
    SegmentStore store = regional(Region.of(1, 2));

    assertEquals(BASE_1_OF_2 + 5000, store.createTag("a", BASE_1_OF_2 + 5000, 10, null).maxId());
    assertEquals(5000, local.getTag("a").orElseThrow().maxId());
    MemorySegmentStore other = new MemorySegmentStore();
    SegmentStore quarter =
        new RegionalSegmentStore(other, Region.of(1, 4), new MemoryRegionStore(other));
    MaxIdOutsideRegionException e =
        assertThrows(
            MaxIdOutsideRegionException.class, () -> quarter.createTag("b", BASE_1_OF_2, 10, null));
    assertTrue(e.getMessage().startsWith("max_id must lie in region 1/4's share"), e.getMessage());
  }

  @Test
  void nextSegment_pastTheSharesEnd_outOfRangeNamingRegion_nothingIssued() {
    Region region = Region.of(3, 4);
    SegmentStore store = regional(region);
    store.createTag("t", region.maxLocalMaxId() - 150, 100, null);

    SegmentRange last = store.nextSegment("t", SegmentStore.TABLE_STEP);
    IdOverflowException e =
        assertThrows(
            IdOverflowException.class, () -> store.nextSegment("t", SegmentStore.TABLE_STEP));

    assertEquals(region.base() + region.maxLocalMaxId() - 50, last.end());
    assertTrue(last.end() - 1 < Long.MAX_VALUE - 1, "every ID issued lies below 2^63-1");
    assertTrue(e.getMessage().startsWith("biz_tag t is exhausted in region 3/4:"), e.getMessage());
  }

  @Test
  void none_isTheDatabaseUnchanged() {
    SegmentStore store = regional(Region.NONE);
    store.createTag("t", 1, 10, null);
    assertEquals(new SegmentRange(1, 11, 10, 10), store.nextSegment("t", 0));
    assertTrue(recorded.read().isEmpty(), "a server without regions records none");
  }

  @Test
  void verify_freshDatabase_recordsRegion_laterServersOfOtherRegionsOrNoneRefused() {
    regional(Region.of(1, 3)).verify();

    assertEquals(new StoredRegion("high-bits", 1, 3), recorded.read().orElseThrow());
    regional(Region.of(1, 3)).verify();
    assertRefused(
        "--region 2/3 contradicts the database's region 1/3 (table leaf_region)", Region.of(2, 3));
    assertRefused(
        "--region 1/4 contradicts the database's region 1/3 (table leaf_region):"
            + " every server of every region uses the same n",
        Region.of(1, 4));
    assertRefused(
        "the database issues region 1/3's IDs (table leaf_region): start this server"
            + " with --region 1/3",
        Region.NONE);
  }

  @Test
  void verify_tableIssuedWithoutRegions_region0TakesItOver_othersRefused() {
    local.createTag("order", 1_000_000, 100, null);

    assertRefused(
        "--region 1/2: leaf_alloc already holds IDs issued without a region (tag order"
            + " at max_id 1000000); only region 0 can take over such a table (docs/regions.md)",
        Region.of(1, 2));
    RegionalSegmentStore region0 = regional(Region.of(0, 2));
    region0.verify();
    assertEquals(
        new SegmentRange(1_000_000, 1_000_100, 100, 100),
        region0.nextSegment("order", 0),
        "region 0 continues the table's numbers");
  }

  @Test
  void verify_region0OverATagPastItsShare_refused() {
    local.createTag("huge", 1L << 62, 100, null);
    assertRefused(
        "--region 0/2: tag huge has max_id "
            + (1L << 62)
            + ", past region 0/2's"
            + " share, whose max_id stays at most "
            + ((1L << 62) - 1),
        Region.of(0, 2));
  }

  @Test
  void refusedServer_issuesNothing_everyCallRefused() {
    regional(Region.of(0, 2)).createTag("t", 1, 10, null);
    RegionalSegmentStore wrong = regional(Region.of(1, 2));

    assertThrows(RegionMismatchException.class, () -> wrong.nextSegment("t", 0));
    assertThrows(RegionMismatchException.class, () -> wrong.getTag("t"));
    assertThrows(RegionMismatchException.class, () -> wrong.createTag("u", 1, 10, null));
    assertEquals(1, local.getTag("t").orElseThrow().maxId(), "no segment was taken");
  }

  private void assertRefused(String message, Region region) {
    RegionMismatchException e =
        assertThrows(RegionMismatchException.class, () -> regional(region).verify());
    assertEquals(message, e.getMessage());
  }
}
