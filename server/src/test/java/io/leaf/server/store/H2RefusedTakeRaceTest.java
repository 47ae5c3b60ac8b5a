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
import org.junit.jupiter.api.Test;

/**
 * Takes whose guard refuses them, racing takes that commit on the same row of an H2 file, never
 * make a committed take lose its {@code max_id} bump: no range is served twice and {@code max_id}
 * moves by the served takes exactly.
 */
class H2RefusedTakeRaceTest {

  private static final int ROUNDS = 150;
  private static final int TAKES = 40;

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

  @Test
  void nextSegment_refusedTakesRacingServedOnes_noRangeTwiceAndMaxIdMovedByServedOnly()
      throws Exception {
    try (TestDatabase db = TestDatabases.h2()) {
      JooqSegmentStore served = store(db, false);
      JooqSegmentStore refused = store(db, true);
      ExecutorService threads = Executors.newFixedThreadPool(4);
      try {
        for (int round = 0; round < ROUNDS; round++) {
          String tag = "t" + round;
          served.createTag(tag, 1, 10, null);
          Map<Long, Integer> starts = new ConcurrentHashMap<>();
          AtomicInteger count = new AtomicInteger();
          List<Future<?>> futures = new ArrayList<>();
          for (int t = 0; t < 4; t++) {
            JooqSegmentStore store = t < 2 ? served : refused;
            futures.add(
                threads.submit(
                    () -> {
                      for (int i = 0; i < TAKES; i++) {
                        try {
                          long start = store.nextSegment(tag, SegmentStore.TABLE_STEP).start();
                          count.incrementAndGet();
                          assertNull(starts.put(start, 1), tag + ": two takes started at " + start);
                        } catch (IllegalStateException expected) {
                          // the refusing guard
                        }
                      }
                      return null;
                    }));
          }
          for (Future<?> f : futures) {
            f.get();
          }
          assertEquals(2 * TAKES, count.get(), "every served take of " + tag + " served");
          assertEquals(
              1 + 10L * count.get(),
              served.getTag(tag).orElseThrow().maxId(),
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
