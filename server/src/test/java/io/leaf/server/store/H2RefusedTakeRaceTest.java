package io.leaf.server.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import java.sql.Connection;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.DSLContext;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Writes that end without taking anything (a take its guard refuses, a hand-back whose record
 * fails), racing takes that commit on the same row of an H2 file, never make a committed take lose
 * its {@code max_id} bump: no range is served twice and {@code max_id} moves by the served takes.
 */
@Tag("slow")
class H2RefusedTakeRaceTest {

  private static final int ROUNDS = 100;
  private static final int TURNS = 40;

  /** Runs every take in a transaction; refuses each one when {@code refuse}. */
  private record Guard(boolean refuse) implements TakeGuard {
    @Override
    public boolean active() {
      return true;
    }

    @Override
    public void inTake(Connection c, DSLContext db, Take take) {
      if (refuse) {
        throw new IllegalStateException("refused");
      }
    }
  }

  /** One turn of the two other threads: the start of a take it served, or -1. */
  private interface Turn {
    long run(JooqSegmentStore refusing, JooqSegmentStore guarded, String tag);
  }

  @Test
  void nextSegment_refusedTakesRacingServedOnes_noRangeTwiceAndMaxIdMovedByServedOnly()
      throws Exception {
    race(
        (refusing, guarded, tag) -> {
          try {
            refusing.nextSegment(tag, SegmentStore.TABLE_STEP);
            throw new AssertionError("a take its guard refuses was served");
          } catch (IllegalStateException expected) {
            return -1;
          }
        });
  }

  @Test
  void setBack_failingRecordsRacingTakes_noRangeTwiceAndMaxIdMovedByTakesOnly() throws Exception {
    race(
        (refusing, guarded, tag) -> {
          SegmentRange r = guarded.nextSegment(tag, SegmentStore.TABLE_STEP);
          try {
            guarded.setBack(
                tag,
                r.start(),
                r.end(),
                (tx, now) -> {
                  throw new IllegalStateException("the record fails");
                });
          } catch (IllegalStateException expected) {
            // nothing handed back
          }
          return r.start();
        });
  }

  private static void race(Turn other) throws Exception {
    try (TestDatabase db = TestDatabases.h2()) {
      JooqSegmentStore guarded = store(db, false);
      JooqSegmentStore refusing = store(db, true);
      ExecutorService threads = Executors.newFixedThreadPool(4);
      try {
        for (int round = 0; round < ROUNDS; round++) {
          String tag = "t" + round;
          guarded.createTag(tag, 1, 10, null);
          Map<Long, Integer> starts = new ConcurrentHashMap<>();
          AtomicInteger served = new AtomicInteger();
          List<Future<?>> futures = new ArrayList<>();
          for (int t = 0; t < 4; t++) {
            boolean taking = t < 2;
            futures.add(
                threads.submit(
                    () -> {
                      for (int i = 0; i < TURNS; i++) {
                        long start =
                            taking
                                ? guarded.nextSegment(tag, SegmentStore.TABLE_STEP).start()
                                : other.run(refusing, guarded, tag);
                        if (start >= 0) {
                          served.incrementAndGet();
                          assertNull(starts.put(start, 1), tag + ": two takes started at " + start);
                        }
                      }
                      return null;
                    }));
          }
          for (Future<?> f : futures) {
            f.get();
          }
          assertEquals(
              1 + 10L * served.get(),
              guarded.getTag(tag).orElseThrow().maxId(),
              tag + ": max_id moved by the served takes exactly");
        }
      } finally {
        threads.shutdownNow();
      }
    }
  }

  private static JooqSegmentStore store(TestDatabase db, boolean refuse) {
    JooqSegmentStore store =
        new JooqSegmentStore(
            db.pool(2), DataSources.dialectOf(db.url), InstantSource.system(), new Guard(refuse));
    store.createSchemaIfMissing();
    return store;
  }
}
