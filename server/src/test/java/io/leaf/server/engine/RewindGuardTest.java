package io.leaf.server.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.store.SegmentRange;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.StoreUnavailableException;
import io.leaf.server.testing.Blocking;
import io.leaf.server.testing.EngineThreadsFixture;
import io.leaf.server.testing.FakeTicker;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/** A database that goes back in time never makes this server issue an ID twice. */
class RewindGuardTest {

  private final AtomicInteger rewinds = new AtomicInteger();
  private final RewindGuard guard =
      new RewindGuard(
          () ->
              new EngineEvents() {
                @Override
                public void segmentRewound() {
                  rewinds.incrementAndGet();
                }
              });

  /** A store write that answers the scripted ranges in order and records the steps asked. */
  private static final class Script implements IntFunction<SegmentRange> {
    final Deque<SegmentRange> answers = new ArrayDeque<>();
    final List<Integer> steps = new ArrayList<>();

    Script(SegmentRange... ranges) {
      answers.addAll(List.of(ranges));
    }

    @Override
    public SegmentRange apply(int step) {
      steps.add(step);
      return answers.removeFirst();
    }
  }

  private static SegmentRange range(long start, long end) {
    return new SegmentRange(start, end, (int) (end - start), 100);
  }

  @Test
  void take_rangesGoingUp_returnedAsTheyCame() {
    assertEquals(range(1, 101), guard.take("t", 0, false, new Script(range(1, 101))));
    assertEquals(range(301, 401), guard.take("t", 0, false, new Script(range(301, 401))));
    assertEquals(401, guard.ceiling("t"));
    assertEquals(0, rewinds.get(), "no rewind");
  }

  @Test
  void take_rangeStartingBelowIssued_overlapSkippedAndCounted() {
    guard.take("t", 0, false, new Script(range(1, 201)));

    SegmentRange got = guard.take("t", 0, false, new Script(range(151, 351)));

    assertEquals(range(201, 351), got, "only the IDs above 200, the highest taken here");
    assertEquals(1, rewinds.get(), "counted once");
    assertEquals(351, guard.ceiling("t"));
  }

  @Test
  void take_rangeWhollyBelow_oneWriteMovesMaxIdPast() {
    guard.take("t", 0, false, new Script(range(1, 1001)));
    // Restored from a backup taken at max_id 101: the next write hands out [101, 201).
    Script db = new Script(range(101, 201), range(201, 1201));

    SegmentRange got = guard.take("t", 0, false, db);

    assertEquals(
        List.of(0, 900),
        db.steps,
        "the table step, then past 1000 plus the 100 IDs wanted, in one write");
    assertEquals(range(1001, 1101), got, "as many IDs as a segment held, all above 1000");
    assertEquals(1, rewinds.get());
  }

  @Test
  void take_reservationPartlyBelow_exactlyTheCountAbove() {
    guard.take("t", 0, false, new Script(range(1, 201)));
    Script db = new Script(range(101, 251), range(251, 401));

    SegmentRange got = guard.take("t", 150, true, db);

    assertEquals(List.of(150, 150), db.steps, "50 above is not 150: one more write of 150");
    assertEquals(range(251, 401), got);
  }

  @Test
  void take_twoWritesInFlightAnsweredOutOfOrder_noRewind() {
    // A preload and a ReserveIds write at once: the reservation's higher range is recorded
    // before the preload's lower one returns. Neither went back in time.
    SegmentRange preload =
        guard.take(
            "t",
            0,
            false,
            step -> {
              guard.take("t", 500, true, new Script(range(201, 701)));
              return range(101, 201);
            });

    assertEquals(range(101, 201), preload, "taken before the reservation: used as it is");
    assertEquals(0, rewinds.get());
    assertEquals(701, guard.ceiling("t"));
  }

  @Test
  void take_stillBelowAfterEveryJump_unavailableNamingBothValues() {
    guard.take("t", 0, false, new Script(range(1, 10_001)));
    Script db =
        new Script(range(1, 101), range(1, 101), range(1, 101), range(1, 101), range(1, 101));

    StoreUnavailableException e =
        assertThrows(StoreUnavailableException.class, () -> guard.take("t", 0, false, db));

    assertTrue(
        e.getMessage().contains("biz_tag t") && e.getMessage().contains("10000"), e.getMessage());
    assertEquals(1 + RewindGuard.MAX_JUMPS, db.steps.size(), "bounded: " + db.steps);
  }

  /** A store whose database can be swapped for a restored backup under a running allocator. */
  private static final class RestorableStore extends io.leaf.server.store.ForwardingSegmentStore {
    private volatile SegmentStore database;

    RestorableStore(SegmentStore database) {
      super(database);
      this.database = database;
    }

    void restore(SegmentStore backup) {
      database = backup;
    }

    @Override
    public SegmentRange nextSegment(String bizTag, int step) {
      return database.nextSegment(bizTag, step);
    }
  }

  @Test
  void nextId_databaseRestoredFromAnOldBackup_noIdTwiceAndRewindCounted() {
    MemorySegmentStore live = new MemorySegmentStore();
    live.createTag("order", 1, 100, null);
    MemorySegmentStore backup = new MemorySegmentStore();
    backup.createTag("order", 1, 100, null);
    RestorableStore store = new RestorableStore(live);
    EngineThreadsFixture threads = new EngineThreadsFixture(EngineConfig.DEFAULTS);
    EngineListeners counting =
        EngineListeners.NONE.withEvents(
            new EngineEvents() {
              @Override
              public void segmentRewound() {
                rewinds.incrementAndGet();
              }
            });
    SegmentAllocator allocator =
        new SegmentAllocator(
            store, new FakeTicker(), EngineConfig.DEFAULTS, threads.threads(), counting);
    long wait = TimeUnit.SECONDS.toNanos(10);
    try {
      Set<Long> issued = new HashSet<>();
      long last = 0;
      for (int i = 0; i < 450; i++) {
        if (i == 150) {
          store.restore(backup);
        }
        long id = Blocking.nextId(allocator, "order", wait);
        assertTrue(issued.add(id), "ID " + id + " issued twice");
        assertTrue(id > last, "IDs keep increasing on this server: " + id + " after " + last);
        last = id;
      }
      store.restore(backup);
      for (long id : Blocking.nextIds(allocator, "order", 500, wait).toArray()) {
        assertTrue(issued.add(id), "ID " + id + " of a batch issued twice");
      }
      IdRanges reserved =
          Blocking.join(
              allocator.reserve("order", 300, allocator.deadline(wait, true), Runnable::run), wait);
      for (long id : reserved.toArray()) {
        assertTrue(issued.add(id), "reserved ID " + id + " issued before");
      }
      assertEquals(300, reserved.size(), "a reservation gets its whole count");
      assertTrue(rewinds.get() >= 1, "the rewind was counted: " + rewinds.get());
    } finally {
      allocator.close();
      threads.close();
    }
  }
}
