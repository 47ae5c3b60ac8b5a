package io.leaf.server.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.base.Ticker;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.engine.IdRanges;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.engine.ServerClosingException;
import io.leaf.server.engine.UnissuedRun;
import io.leaf.server.testing.ControllableStore;
import io.leaf.server.testing.EngineThreadsFixture;
import io.leaf.server.testing.LedgeredStore;
import io.leaf.server.testing.Pace;
import io.leaf.server.testing.Poll;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The hand-back at a graceful stop on the real engine over the in-memory store: what a frozen
 * engine held unissued goes back with one conditional write, never an ID a caller got or reserved,
 * and a load or reservation that moved {@code max_id} meanwhile makes it a gap.
 */
@Timeout(60)
class HandBackTest {

  private static final long WAIT = TimeUnit.SECONDS.toNanos(10);

  private final LedgeredStore memory =
      LedgeredStore.memory(InstantSource.system(), LedgerSettings.on("me"));
  private final ControllableStore store = new ControllableStore(memory);
  private final List<EngineThreadsFixture> fixtures = new ArrayList<>();
  private final List<SegmentAllocator> engines = new ArrayList<>();
  private final SegmentAllocator allocator = engine();
  private final HandBack handBack = new HandBack(memory, Runnable::run);

  private SegmentAllocator engine() {
    EngineThreadsFixture threads = new EngineThreadsFixture(EngineConfig.DEFAULTS);
    fixtures.add(threads);
    SegmentAllocator a =
        new SegmentAllocator(
            store, Ticker.systemTicker(), EngineConfig.DEFAULTS, threads.threads());
    engines.add(a);
    return a;
  }

  @AfterEach
  void tearDown() {
    store.release();
    engines.forEach(SegmentAllocator::close);
    fixtures.forEach(EngineThreadsFixture::close);
  }

  private static long next(SegmentAllocator a, String tag) throws Exception {
    return a.nextId(tag, a.deadline(WAIT, false)).get(10, TimeUnit.SECONDS);
  }

  private List<UnissuedRun> freeze(SegmentAllocator a) {
    a.close();
    return a.freeze();
  }

  private long maxId(String tag) {
    return memory.getTag(tag).orElseThrow().maxId();
  }

  @Test
  void stop_restHandedBack_theNextServerContinuesAfterTheLastIdIssued() throws Exception {
    memory.createTag("t", 1, 1000, null);
    long last = 0;
    for (int i = 0; i < 30; i++) {
      last = next(allocator, "t");
    }
    quiet();
    List<UnissuedRun> runs = freeze(allocator);

    assertEquals(1, runs.size());
    assertEquals(last + 1, runs.get(0).first());
    assertEquals(maxId("t"), runs.get(0).end(), "the run ends where max_id is");
    HandBack.Result r = handBack.run(runs, Duration.ofSeconds(5));
    assertEquals(1, r.returned());
    assertEquals(last + 1, maxId("t"));
    assertEquals(RangeKind.RETURNED, memory.whoIssued("t", last + 1).orElseThrow().kind());
    assertEquals(RangeKind.SEGMENT, memory.whoIssued("t", last).orElseThrow().kind());
    assertEquals(last + 1, next(engine(), "t"), "no gap across the stop");
  }

  @Test
  void stop_idsReservedFromTheBuffer_neverHandedBack() throws Exception {
    memory.createTag("t", 1, 1000, null);
    next(allocator, "t");
    IdRanges reserved =
        allocator
            .reserve("t", 20, allocator.deadline(WAIT, true), Runnable::run)
            .get(10, TimeUnit.SECONDS);
    long lastReserved = reserved.to(reserved.rangeCount() - 1) - 1;
    quiet();
    List<UnissuedRun> runs = freeze(allocator);

    assertEquals(lastReserved + 1, runs.get(0).first());
    handBack.run(runs, Duration.ofSeconds(5));
    assertEquals(lastReserved + 1, next(engine(), "t"));
  }

  @Test
  void stop_aDedicatedReservationAfterTheLastSegment_notHandedBack() throws Exception {
    memory.createTag("t", 1, 100, null);
    next(allocator, "t");
    // Another server's ReserveIds wrote after this server's segment.
    long reservedEnd = memory.reserveRange("t", 10).end();
    List<UnissuedRun> runs = freeze(allocator);

    HandBack.Result r = handBack.run(runs, Duration.ofSeconds(5));
    assertEquals(0, r.returned());
    assertEquals(reservedEnd, maxId("t"), "max_id untouched");
    assertEquals(RangeKind.RESERVE, memory.whoIssued("t", reservedEnd - 1).orElseThrow().kind());
  }

  @Test
  void stop_ownReservationThenMoreIds_onlyTheRestAboveHandedBack() throws Exception {
    memory.createTag("t", 1, 1000, null);
    next(allocator, "t");
    IdRanges reserved =
        allocator
            .reserve("t", 1500, allocator.deadline(WAIT, true), Runnable::run)
            .get(10, TimeUnit.SECONDS);
    long lastReserved = reserved.to(reserved.rangeCount() - 1) - 1;
    quiet();
    long after = next(allocator, "t");
    assertTrue(after > lastReserved);
    quiet();
    List<UnissuedRun> runs = freeze(allocator);

    assertEquals(after + 1, runs.get(0).first());
    handBack.run(runs, Duration.ofSeconds(5));
    assertEquals(after + 1, next(engine(), "t"));
    assertEquals(
        RangeKind.RESERVE,
        memory.whoIssued("t", lastReserved).orElseThrow().kind(),
        "the reservation stays");
  }

  @Test
  void stop_loadInFlightCommitsBeforeTheHandBack_noRunOfferedItsSegmentNeverIssued()
      throws Exception {
    List<UnissuedRun> runs = freezeWithAPreloadHeld();
    assertTrue(runs.isEmpty(), "a tag whose load is in flight offers no run: " + runs);
    store.release();
    awaitLoads(2);
    long moved = maxId("t");

    assertEquals(0, handBack.run(runs, Duration.ofSeconds(5)).returned());
    assertEquals(moved, maxId("t"));
    assertEquals(moved, next(engine(), "t"), "the late segment is a gap, never issued");
  }

  @Test
  void stop_aLoadStillInFlight_tagNotHandedBack_theLoadsRangeAndTheRestStayAGap() throws Exception {
    List<UnissuedRun> runs = freezeWithAPreloadHeld();

    assertEquals(
        0,
        handBack.run(runs, Duration.ofSeconds(5)).returned(),
        "a tag whose load is in flight is not handed back");
    assertEquals(101, maxId("t"), "max_id untouched by the stop");
    store.release();
    awaitLoads(2);
    long moved = maxId("t");
    assertEquals(201, moved, "the late load took the next segment, above every ID issued");
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () -> allocator.nextId("t", allocator.deadline(WAIT, false)).get(10, TimeUnit.SECONDS));
    assertInstanceOf(ServerClosingException.class, e.getCause());
    assertEquals(moved, next(engine(), "t"), "the late load's range went unused: a gap");
  }

  /** Tag t issues 16 IDs of its first segment, its preload is held in the store, then a freeze. */
  private List<UnissuedRun> freezeWithAPreloadHeld() throws Exception {
    memory.createTag("t", 1, 100, null);
    next(allocator, "t");
    store.blockLoads();
    for (int i = 0; i < 15; i++) {
      next(allocator, "t");
    }
    assertTrue(store.awaitLoadEntered(5_000), "the preload started");
    List<UnissuedRun> runs = freeze(allocator);
    return runs;
  }

  private void awaitLoads(int want) throws InterruptedException {
    assertTrue(
        Poll.until(() -> store.loads() >= want, Duration.ofSeconds(10)),
        "loads " + store.loads() + ", expected " + want);
  }

  /** Waits until no load is in flight, twice 50 ms apart. */
  private void quiet() throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    for (int calm = 0; calm < 2; ) {
      assertTrue(System.nanoTime() < until, "loads never settled");
      Pace.holdMillis(50); // deliberate: quiet means no new load over 50 ms, twice
      calm = store.attempts() == store.loads() ? calm + 1 : 0;
    }
  }

  @Test
  void stop_whileCallersTakeIds_noIdIssuedIsHandedBackAndNoneRepeats() throws Exception {
    memory.createTag("hot", 1, 50, null);
    int callers = 4;
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    List<Future<List<Long>>> got = new ArrayList<>();
    for (int c = 0; c < callers; c++) {
      got.add(
          pool.submit(
              () -> {
                List<Long> ids = new ArrayList<>();
                while (true) {
                  long id = allocator.tryNextId("hot");
                  if (id == SegmentAllocator.NO_ID) {
                    try {
                      id = next(allocator, "hot");
                    } catch (ExecutionException | RuntimeException e) {
                      return ids;
                    }
                  }
                  ids.add(id);
                }
              }));
    }
    Pace.holdMillis(200); // deliberate: the callers take IDs for a while before the freeze
    List<UnissuedRun> runs = freeze(allocator);
    Set<Long> issued = new HashSet<>();
    long highest = 0;
    for (Future<List<Long>> f : got) {
      for (long id : f.get(10, TimeUnit.SECONDS)) {
        assertTrue(issued.add(id), "ID " + id + " issued twice");
        highest = Math.max(highest, id);
      }
    }
    pool.shutdown();
    assertTrue(issued.size() > 100, "the callers took IDs: " + issued.size());
    handBack.run(runs, Duration.ofSeconds(5));
    long resumed = next(engine(), "hot");
    assertTrue(resumed > highest, "resumed at " + resumed + " after " + highest);
    if (!runs.isEmpty()) {
      assertTrue(runs.get(0).first() > highest, "a run starts above every ID issued");
      assertEquals(runs.get(0).first(), resumed);
    }
  }

  @Test
  void run_outOfTime_theRestAreGaps() {
    memory.createTag("a", 1, 100, null);
    memory.createTag("b", 1, 100, null);
    memory.nextSegment("a", 100);
    memory.nextSegment("b", 100);
    List<Runnable> never = new ArrayList<>();
    HandBack stuck = new HandBack(memory, never::add);

    HandBack.Result r =
        stuck.run(
            List.of(new UnissuedRun("a", 50, 101), new UnissuedRun("b", 50, 101)),
            Duration.ofMillis(50));
    assertEquals(2, r.unfinished());
    never.forEach(Runnable::run);
    assertEquals(101, maxId("a"), "a run after the budget is not written");
    assertEquals(101, maxId("b"));
  }
}
