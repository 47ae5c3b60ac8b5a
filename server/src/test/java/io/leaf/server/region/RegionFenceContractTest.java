package io.leaf.server.region;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.ledger.Ledger;
import io.leaf.server.ledger.LedgerSettings;
import io.leaf.server.ledger.RecordedTakes;
import io.leaf.server.store.DataSources;
import io.leaf.server.store.IdOverflowException;
import io.leaf.server.store.JooqSegmentStore;
import io.leaf.server.store.SegmentRange;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.TakeGuard;
import io.leaf.server.testing.LedgeredStore;
import io.leaf.server.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every take checks {@code leaf_region} (or its absence) and the share's end in its own
 * transaction, as a server's store is wired: a region claimed, changed or deleted after a server
 * started stops its next take, and a refused take leaves {@code max_id} and the ledger untouched.
 */
abstract class RegionFenceContractTest {

  static final LedgerSettings LEDGER = LedgerSettings.on("host-a:50051/1-aaaaaa");

  private TestDatabase db;
  private JooqRegionStore regions;

  abstract TestDatabase newDatabase();

  @BeforeEach
  void setUp() {
    db = newDatabase();
    regions =
        new JooqRegionStore(db.pool(2), DataSources.dialectOf(db.url), InstantSource.system());
  }

  @AfterEach
  void tearDown() throws Exception {
    if (db != null) {
      db.close();
    }
  }

  /** The ledger beside {@code regional}, as the wiring builds it. */
  private static Ledger ledgerOf(RegionalSegmentStore regional) {
    return new RegionalLedger((Ledger) regional.delegate(), regional);
  }

  /** The store of a server started with {@code region}, as the server wires it. */
  private RegionalSegmentStore server(Region region, LedgerSettings ledger) {
    JooqSegmentStore local =
        new JooqSegmentStore(
            db.pool(2),
            DataSources.dialectOf(db.url),
            InstantSource.system(),
            TakeGuard.both(
                RegionalSegmentStore.fence(region),
                new RecordedTakes(ledger, InstantSource.system())));
    local.createSchemaIfMissing();
    RegionalSegmentStore store =
        new RegionalSegmentStore(LedgeredStore.database(local, ledger), region, regions);
    store.verify();
    return store;
  }

  private void sql(String statement) throws Exception {
    try (Connection c = DriverManager.getConnection(db.url, db.user, db.password);
        Statement s = c.createStatement()) {
      s.execute(statement);
    }
  }

  private long localMaxId(String tag) throws Exception {
    try (Connection c = DriverManager.getConnection(db.url, db.user, db.password);
        Statement s = c.createStatement();
        var rs = s.executeQuery("SELECT max_id FROM leaf_alloc WHERE biz_tag = '" + tag + "'")) {
      assertTrue(rs.next(), "row " + tag + " exists");
      return rs.getLong(1);
    }
  }

  private void claim(int r, int n) {
    regions.claim(new StoredRegion("high-bits", r, n));
  }

  @Test
  void nextSegment_regionClaimedAfterStartOfServerWithoutRegion_refusedAndMaxIdStays()
      throws Exception {
    RegionalSegmentStore plain = server(Region.NONE, LedgerSettings.OFF);
    plain.createTag("order", 1, 100, null);
    assertEquals(
        1,
        plain.nextSegment("order", SegmentStore.TABLE_STEP).start(),
        "no region recorded yet: the take is served");
    claim(1, 2);

    RegionChangedException e =
        assertThrows(
            RegionChangedException.class,
            () -> plain.nextSegment("order", SegmentStore.TABLE_STEP),
            "a server without --region takes nothing once the database records a region");
    assertTrue(
        e.getMessage().contains("leaf_region") && e.getMessage().contains("--region 1/2"),
        e.getMessage());
    assertThrows(
        RegionChangedException.class,
        () -> plain.reserveRange("order", 10),
        "ReserveIds' own write is refused too");
    assertEquals(101, localMaxId("order"), "the refused takes moved nothing");
  }

  @Test
  void nextSegment_regionClaimedWithLedgerOn_refusedAndNothingRecorded() throws Exception {
    RegionalSegmentStore plain = server(Region.NONE, LEDGER);
    plain.createTag("order", 1, 100, null);
    plain.nextSegment("order", SegmentStore.TABLE_STEP);
    claim(1, 2);

    assertThrows(
        RegionChangedException.class,
        () -> plain.nextSegment("order", SegmentStore.TABLE_STEP),
        "the ledger's recorded take checks the region too");
    assertEquals(101, localMaxId("order"), "the refused take moved nothing");
    assertTrue(
        ledgerOf(plain).whoIssued("order", 150).isEmpty(), "no ledger record of the refused take");
  }

  @Test
  void nextSegment_rowChangedOrDeletedUnderRegionServer_refused() throws Exception {
    RegionalSegmentStore one = server(Region.of(1, 2), LedgerSettings.OFF);
    one.createTag("order", 1, 100, null);
    one.nextSegment("order", SegmentStore.TABLE_STEP);
    sql("UPDATE leaf_region SET region = 0");

    RegionChangedException changed =
        assertThrows(
            RegionChangedException.class,
            () -> one.nextSegment("order", SegmentStore.TABLE_STEP),
            "a changed row stops the take");
    assertTrue(
        changed.getMessage().contains("--region 1/2")
            && changed.getMessage().contains("region 0/2"),
        changed.getMessage());
    sql("DELETE FROM leaf_region");
    RegionChangedException deleted =
        assertThrows(
            RegionChangedException.class,
            () -> one.reserveRange("order", 10),
            "a deleted row stops the take");
    assertTrue(deleted.getMessage().contains("row is gone"), deleted.getMessage());
    assertEquals(101, localMaxId("order"), "the refused takes moved nothing");

    sql(
        "INSERT INTO leaf_region (id, rule_name, region, regions, update_time)"
            + " VALUES (1, 'high-bits', 1, 2, 0)");
    assertEquals(
        Region.of(1, 2).toId(101),
        one.nextSegment("order", 100).start(),
        "the row restored, takes resume where max_id stood");
  }

  @Test
  void nextSegment_regionServerOnMatchingRow_takesAsBefore() {
    RegionalSegmentStore one = server(Region.of(1, 2), LEDGER);
    one.createTag("order", 1, 100, null);
    SegmentRange first = one.nextSegment("order", SegmentStore.TABLE_STEP);
    SegmentRange second = one.reserveRange("order", 10);

    long base = Region.of(1, 2).base();
    assertEquals(new SegmentRange(base + 1, base + 101, 100, 100), first, "first segment");
    assertEquals(base + 101, second.start(), "the reservation follows");
    assertEquals(
        "host-a:50051/1-aaaaaa",
        ledgerOf(one).whoIssued("order", base + 5).orElseThrow().server(),
        "the ledger names the server");
  }

  @Test
  void nextSegment_pastShareEnd_refusedWithoutTrace() throws Exception {
    Region region = Region.of(0, 2);
    RegionalSegmentStore zero = server(region, LEDGER);
    long start = region.maxLocalMaxId() - 50;
    zero.createTag("edge", start, 100, null);

    assertThrows(
        IdOverflowException.class,
        () -> zero.nextSegment("edge", SegmentStore.TABLE_STEP),
        "the share's end refuses");
    assertEquals(start, localMaxId("edge"), "max_id did not move past the share");
    assertTrue(
        ledgerOf(zero).whoIssued("edge", start + 10).isEmpty(),
        "no ledger segment across the boundary");
    assertEquals(
        start,
        zero.nextSegment("edge", 50).start(),
        "the last IDs up to the share's end are still served");
  }

  @Test
  void nextSegment_concurrentTakesOfBothServersAfterClaim_disjointAndPlainOnesRefused()
      throws Exception {
    RegionalSegmentStore plain = server(Region.NONE, LedgerSettings.OFF);
    RegionalSegmentStore one = server(Region.of(1, 2), LEDGER);
    one.createTag("order", 1, 10, null);
    ExecutorService threads = Executors.newFixedThreadPool(6);
    AtomicInteger refused = new AtomicInteger();
    List<Future<List<SegmentRange>>> futures = new ArrayList<>();
    try {
      for (int t = 0; t < 6; t++) {
        RegionalSegmentStore store = t < 4 ? one : plain;
        futures.add(
            threads.submit(
                () -> {
                  List<SegmentRange> taken = new ArrayList<>();
                  for (int i = 0; i < 40; i++) {
                    try {
                      taken.add(store.nextSegment("order", SegmentStore.TABLE_STEP));
                    } catch (RegionChangedException e) {
                      refused.incrementAndGet();
                    }
                  }
                  return taken;
                }));
      }
      TreeMap<Long, SegmentRange> byStart = new TreeMap<>();
      int count = 0;
      for (var f : futures) {
        for (SegmentRange r : f.get()) {
          count++;
          assertTrue(byStart.put(r.start(), r) == null, "two takes started at " + r.start());
        }
      }
      long end = Region.of(1, 2).base() + 1;
      for (SegmentRange r : byStart.values()) {
        assertEquals(end, r.start(), "segments follow each other without overlap");
        end = r.end();
      }
      assertEquals(160, count, "every take of region 1/2's server served");
      assertEquals(80, refused.get(), "every take of the server without --region refused");
      assertEquals(1 + 160 * 10, localMaxId("order"), "max_id moved by the served takes only");
    } finally {
      threads.shutdownNow();
    }
  }
}
