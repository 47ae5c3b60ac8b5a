package io.leaf.server.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.region.JooqRegionStore;
import io.leaf.server.region.Region;
import io.leaf.server.region.RegionalLedger;
import io.leaf.server.region.RegionalSegmentStore;
import io.leaf.server.store.JooqSegmentStore;
import io.leaf.server.store.SegmentRange;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.StoreRejectedException;
import io.leaf.server.testing.FakeWallClock;
import io.leaf.server.testing.LedgeredStore;
import io.leaf.server.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The ledger on a real database: every take recorded in its own transaction, WhoIssued's answer,
 * the hand-back's conditional write, retention in batches.
 */
abstract class LedgerContractTest {

  static final LedgerSettings A = LedgerSettings.on("host-a:50051/1-aaaaaa");
  static final LedgerSettings B = LedgerSettings.on("host-b:50051/2-bbbbbb");

  private TestDatabase db;
  final FakeWallClock clock = new FakeWallClock(1_700_000_000_000L);
  LedgeredStore store;

  abstract TestDatabase newDatabase();

  @BeforeEach
  void setUp() {
    db = newDatabase();
    store = db.store(4, A, clock);
  }

  @AfterEach
  void tearDown() throws Exception {
    if (db != null) {
      db.close();
    }
  }

  private void sql(String statement) throws Exception {
    try (Connection c = DriverManager.getConnection(db.url, db.user, db.password);
        Statement s = c.createStatement()) {
      s.execute(statement);
    }
  }

  @Test
  void nextSegment_recordsTheRangeWithServerTimeAndKind() {
    store.createTag("t", 1, 100, null);
    SegmentRange r = store.nextSegment("t", SegmentStore.TABLE_STEP);

    IssuedRange found = store.whoIssued("t", 50).orElseThrow();
    assertEquals(
        new IssuedRange(r.start(), r.end(), A.server(), clock.millis(), RangeKind.SEGMENT), found);
    assertEquals(found, store.whoIssued("t", r.start()).orElseThrow());
    assertEquals(found, store.whoIssued("t", r.end() - 1).orElseThrow());
  }

  @Test
  void whoIssued_idNeverTaken_empty() {
    store.createTag("t", 1, 100, null);
    store.nextSegment("t", SegmentStore.TABLE_STEP);

    assertTrue(store.whoIssued("t", 101).isEmpty(), "the end is exclusive");
    assertTrue(store.whoIssued("t", 0).isEmpty());
    assertTrue(store.whoIssued("other", 5).isEmpty());
  }

  @Test
  void reserveRange_recordedAsReserve() {
    store.createTag("t", 1, 100, null);
    store.nextSegment("t", SegmentStore.TABLE_STEP);
    SegmentRange reserved = store.reserveRange("t", 5000);

    IssuedRange found = store.whoIssued("t", reserved.start() + 4999).orElseThrow();
    assertEquals(RangeKind.RESERVE, found.kind());
    assertEquals(reserved.start(), found.start());
    assertEquals(reserved.end(), found.end());
  }

  @Test
  void whoIssued_afterARestart_answersFromTheDatabase() {
    store.createTag("t", 1, 100, null);
    SegmentRange r = store.nextSegment("t", 30);
    LedgeredStore restarted = db.store(2, B, clock);

    assertEquals(A.server(), restarted.whoIssued("t", r.start()).orElseThrow().server());
    SegmentRange next = restarted.nextSegment("t", 30);
    assertEquals(B.server(), restarted.whoIssued("t", next.start()).orElseThrow().server());
  }

  @Test
  void nextSegment_ledgerInsertFails_nothingTakenMaxIdUnchanged() throws Exception {
    store.createTag("t", 1, 100, null);
    // A record where the next range starts: the primary key refuses the take's record.
    sql(
        "INSERT INTO leaf_ledger (biz_tag, start_id, end_id, kind, server, time_ms)"
            + " VALUES ('t', 1, 101, 'segment', 'earlier', 1)");

    StoreRejectedException e =
        assertThrows(
            StoreRejectedException.class, () -> store.nextSegment("t", SegmentStore.TABLE_STEP));
    assertTrue(e.getMessage().contains("leaf_ledger"), e.getMessage());
    assertEquals(1, store.getTag("t").orElseThrow().maxId(), "the take was rolled back");
    assertEquals("earlier", store.whoIssued("t", 5).orElseThrow().server());
  }

  @Test
  void ledgerOff_oneStatementNothingRecorded_whoIssuedRefused() {
    LedgeredStore off = db.store(2, LedgerSettings.OFF, clock);
    off.createTag("t", 1, 100, null);
    SegmentRange r = off.nextSegment("t", SegmentStore.TABLE_STEP);

    assertThrows(LedgerOffException.class, () -> off.whoIssued("t", r.start()));
    assertTrue(store.whoIssued("t", r.start()).isEmpty(), "nothing was recorded");
  }

  @Test
  void handBack_maxIdStillEndsTheSegment_setBackAndRecordedReturned() {
    store.createTag("t", 1, 100, null);
    SegmentRange r = store.nextSegment("t", SegmentStore.TABLE_STEP);

    assertTrue(store.handBack("t", 51, r.end()));
    assertEquals(51, store.getTag("t").orElseThrow().maxId());
    assertEquals(
        RangeKind.SEGMENT,
        store.whoIssued("t", 50).orElseThrow().kind(),
        "IDs issued before stay the segment's");
    IssuedRange returned = store.whoIssued("t", 51).orElseThrow();
    assertEquals(
        new IssuedRange(51, 101, A.server(), clock.millis(), RangeKind.RETURNED), returned);

    LedgeredStore other = db.store(2, B, clock);
    SegmentRange next = other.nextSegment("t", 100);
    assertEquals(51, next.start(), "the next take follows the last ID issued");
    assertEquals(B.server(), other.whoIssued("t", 51).orElseThrow().server());
    assertEquals(RangeKind.SEGMENT, other.whoIssued("t", 100).orElseThrow().kind());
  }

  @Test
  void handBack_wholeSegmentsUnissued_theirRecordsGiveWayToTheReturnedOne() {
    store.createTag("t", 1, 100, null);
    store.nextSegment("t", SegmentStore.TABLE_STEP);
    SegmentRange second = store.nextSegment("t", SegmentStore.TABLE_STEP);

    assertTrue(store.handBack("t", 1, second.end()), "nothing of either was issued");
    assertEquals(RangeKind.RETURNED, store.whoIssued("t", 1).orElseThrow().kind());
    // The same starts are taken again: the primary key must not refuse them.
    SegmentRange again = store.nextSegment("t", SegmentStore.TABLE_STEP);
    assertEquals(1, again.start());
    assertTrue(store.handBack("t", 1, again.end()), "handed back twice from the same ID");
    IssuedRange returned = store.whoIssued("t", 150).orElseThrow();
    assertEquals(
        new IssuedRange(1, 201, A.server(), clock.millis(), RangeKind.RETURNED),
        returned,
        "the earlier, longer hand-back is kept whole");
  }

  @Test
  void handBack_twoServersInARollingRestart_aRetakeOfBothRangesAnswersTheNewSegment() {
    LedgerSettings c3 = LedgerSettings.on("host-c:50051/3-cccccc");
    LedgeredStore b = db.store(2, B, clock);
    LedgeredStore c = db.store(2, c3, clock);
    store.createTag("t", 1, 100, null);
    b.nextSegment("t", SegmentStore.TABLE_STEP); // [1, 101): b's current
    store.nextSegment("t", SegmentStore.TABLE_STEP); // [101, 201): 101..150 issued
    assertEquals(201, b.nextSegment("t", SegmentStore.TABLE_STEP).start()); // b's, untouched

    assertTrue(b.handBack("t", 201, 301), "b stops first: its prefetched segment");
    assertTrue(store.handBack("t", 151, 201), "then a: its rest, ending where max_id now is");
    SegmentRange retake = c.nextSegment("t", SegmentStore.TABLE_STEP);
    assertEquals(151, retake.start());

    for (long id : new long[] {151, 220, 250}) {
      IssuedRange who = c.whoIssued("t", id).orElseThrow();
      assertEquals(RangeKind.SEGMENT, who.kind(), id + " went out from c's segment: " + who);
      assertEquals(c3.server(), who.server(), id + ": " + who);
    }
    IssuedRange above = c.whoIssued("t", 280).orElseThrow();
    assertEquals(
        new IssuedRange(151, 301, A.server(), clock.millis(), RangeKind.RETURNED),
        above,
        "both hand-backs in one record: 280 was handed back and never taken since");
    assertEquals(RangeKind.SEGMENT, c.whoIssued("t", 120).orElseThrow().kind(), "a's issued IDs");
  }

  @Test
  void handBack_anotherServerTookASegmentSince_refusedNothingChanged() {
    store.createTag("t", 1, 100, null);
    SegmentRange mine = store.nextSegment("t", SegmentStore.TABLE_STEP);
    db.store(2, B, clock).nextSegment("t", SegmentStore.TABLE_STEP);

    assertFalse(store.handBack("t", 51, mine.end()));
    assertEquals(201, store.getTag("t").orElseThrow().maxId());
    assertEquals(RangeKind.SEGMENT, store.whoIssued("t", 60).orElseThrow().kind());
  }

  @Test
  void handBack_aReservationWrittenAfterTheSegment_refused() {
    store.createTag("t", 1, 100, null);
    SegmentRange mine = store.nextSegment("t", SegmentStore.TABLE_STEP);
    SegmentRange reserved = store.reserveRange("t", 10);

    assertFalse(store.handBack("t", 51, mine.end()), "max_id ends the reservation now");
    assertEquals(reserved.end(), store.getTag("t").orElseThrow().maxId());
  }

  @Test
  void handBack_ledgerOff_stillOneConditionalWrite() {
    LedgeredStore off = db.store(2, LedgerSettings.OFF, clock);
    off.createTag("t", 1, 100, null);
    SegmentRange r = off.nextSegment("t", SegmentStore.TABLE_STEP);

    assertTrue(off.handBack("t", 11, r.end()));
    assertEquals(11, off.getTag("t").orElseThrow().maxId());
    assertTrue(store.whoIssued("t", 20).isEmpty());
  }

  @Test
  void handBack_thenLedgerOffServerIssues_thoseIdsNotFoundTheRestStillReturned() {
    LedgeredStore off = db.store(2, LedgerSettings.OFF, clock);
    store.createTag("t", 1, 100, null);
    store.nextSegment("t", SegmentStore.TABLE_STEP); // [1, 101): 1..5 issued
    assertTrue(store.handBack("t", 6, 101));
    SegmentRange taken = off.nextSegment("t", 10);
    assertEquals(6, taken.start(), "issued without a record");
    assertEquals(16, taken.end());

    for (long id = 6; id < 16; id++) {
      assertTrue(
          store.whoIssued("t", id).isEmpty(),
          id + " may have been issued since the hand-back: " + store.whoIssued("t", id));
    }
    assertEquals(
        RangeKind.RETURNED, store.whoIssued("t", 16).orElseThrow().kind(), "not taken since");
    assertEquals(RangeKind.SEGMENT, store.whoIssued("t", 5).orElseThrow().kind());

    // The ledger-off server hands back what it did not issue: [11, 16) was never issued.
    assertTrue(off.handBack("t", 11, 16));
    assertTrue(store.whoIssued("t", 10).isEmpty(), "issued by the ledger-off server");
    assertEquals(
        RangeKind.RETURNED,
        store.whoIssued("t", 12).orElseThrow().kind(),
        "handed back by both, issued by neither");

    // A recorded take answers for its IDs again; above it the first hand-back still holds.
    LedgeredStore b = db.store(2, B, clock);
    assertEquals(61, b.nextSegment("t", 50).end(), "[11, 61)");
    assertEquals(B.server(), store.whoIssued("t", 12).orElseThrow().server());
    assertTrue(store.whoIssued("t", 8).isEmpty(), "still unknown");
    assertEquals(RangeKind.RETURNED, store.whoIssued("t", 70).orElseThrow().kind());
    // And a ledger-off take past it leaves the hand-back answering nothing there.
    off.nextSegment("t", 50); // [61, 111)
    assertTrue(store.whoIssued("t", 70).isEmpty(), "taken without a record since");
    assertEquals(B.server(), store.whoIssued("t", 60).orElseThrow().server());
  }

  @Test
  void regions_ledgerHoldsLocalValues_whoIssuedAndHandBackSpeakIds() {
    Region region = Region.of(2, 4);
    RegionalSegmentStore regional =
        new RegionalSegmentStore(
            store,
            region,
            new JooqRegionStore(db.pool(1), ((JooqSegmentStore) store.store()).dialect(), clock));
    regional.createTag("t", region.base() + 1, 100, null);
    RegionalLedger ledger = new RegionalLedger(store, regional);
    SegmentRange r = regional.nextSegment("t", SegmentStore.TABLE_STEP);
    assertEquals(region.base() + 1, r.start());

    IssuedRange found = ledger.whoIssued("t", r.start() + 10).orElseThrow();
    assertEquals(r.start(), found.start());
    assertEquals(r.end(), found.end());
    assertEquals(1, store.whoIssued("t", 11).orElseThrow().start(), "stored as local values");
    assertTrue(ledger.whoIssued("t", 11).isEmpty(), "an ID outside the share");

    assertTrue(ledger.handBack("t", r.start() + 20, r.end()));
    assertEquals(region.base() + 21, regional.getTag("t").orElseThrow().maxId());
    assertEquals(region.base() + 21, regional.nextSegment("t", 5).start());
  }

  @Test
  void retention_deletesOldRecordsInBatchesOnly() throws Exception {
    store.createTag("t", 1, 10, null);
    long old = clock.millis() - Duration.ofDays(31).toMillis();
    try (Connection c = DriverManager.getConnection(db.url, db.user, db.password);
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO leaf_ledger"
                    + " (biz_tag, start_id, end_id, kind, server, time_ms) VALUES ('old', ?, ?,"
                    + " 'segment', 'x', ?)")) {
      for (int i = 0; i < 2_500; i++) {
        ps.setLong(1, i * 10L);
        ps.setLong(2, i * 10L + 10);
        ps.setLong(3, old + i);
        ps.addBatch();
      }
      ps.executeBatch();
    }
    SegmentRange recent = store.nextSegment("t", SegmentStore.TABLE_STEP);
    List<Integer> statements = Collections.synchronizedList(new ArrayList<>());
    LedgerRetention retention =
        new LedgerRetention(
            (cutoff, limit) -> {
              int deleted = store.deleteLedgerBefore(cutoff, limit);
              statements.add(deleted);
              return deleted;
            },
            Duration.ofDays(30),
            clock,
            new ScheduledThreadPoolExecutor(1));

    assertEquals(2_500, retention.round());
    assertEquals(List.of(1_000, 1_000, 500), statements, "batches of at most 1,000 rows");
    assertTrue(store.whoIssued("old", 5).isEmpty());
    assertTrue(store.whoIssued("t", recent.start()).isPresent(), "a recent record stays");
    clock.advance(Duration.ofDays(30).plusMillis(1));
    assertEquals(1, retention.round());
    assertTrue(store.whoIssued("t", recent.start()).isEmpty());
  }

  @Test
  void concurrentTakesAndReservations_disjointAndEveryRangeRecordedExactly() throws Exception {
    store.createTag("hot", 1, 7, null);
    LedgeredStore other = db.store(4, B, clock);
    int threads = 8;
    int perThread = 40;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<List<SegmentRange>>> futures = new ArrayList<>();
    AtomicInteger n = new AtomicInteger();
    for (int t = 0; t < threads; t++) {
      LedgeredStore s = t % 2 == 0 ? store : other;
      futures.add(
          pool.submit(
              () -> {
                List<SegmentRange> mine = new ArrayList<>();
                for (int i = 0; i < perThread; i++) {
                  mine.add(
                      n.incrementAndGet() % 3 == 0
                          ? s.reserveRange("hot", 13)
                          : s.nextSegment("hot", SegmentStore.TABLE_STEP));
                }
                return mine;
              }));
    }
    TreeMap<Long, SegmentRange> byStart = new TreeMap<>();
    for (Future<List<SegmentRange>> f : futures) {
      for (SegmentRange r : f.get()) {
        assertEquals(null, byStart.put(r.start(), r), "a start taken twice: " + r);
      }
    }
    pool.shutdown();
    long next = 1;
    for (SegmentRange r : byStart.values()) {
      assertEquals(next, r.start(), "ranges are disjoint and leave no hole");
      next = r.end();
      for (long id : new long[] {r.start(), r.end() - 1}) {
        IssuedRange found = store.whoIssued("hot", id).orElseThrow();
        assertEquals(r.start(), found.start(), "recorded as taken: " + r);
        assertEquals(r.end(), found.end(), "recorded as taken: " + r);
      }
    }
    assertEquals(threads * perThread, byStart.size());
  }
}
