package io.leaf.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.base.Ticker;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.engine.EngineEvents;
import io.leaf.server.store.JooqSegmentStore;
import io.leaf.server.testing.InProcessLeaf;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.IdRange;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.ReserveIdsRequest;
import io.leaf.v1.ReservedIds;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * {@code max_id} set back under a running server, as a restored backup or a promoted replica that
 * lacked commits does: the server keeps issuing, never an ID it issued before, and counts the
 * rewind.
 */
class DatabaseRewindTest {

  @Test
  void nextId_maxIdRewoundOnPostgres_noIdTwiceAndRewindCounted() throws Exception {
    run(TestDatabases::postgres);
  }

  @Test
  void nextId_maxIdRewoundOnMariaDb_noIdTwiceAndRewindCounted() throws Exception {
    run(TestDatabases::mariaDb);
  }

  private static void run(Supplier<TestDatabase> database) throws Exception {
    try (TestDatabase db = database.get()) {
      JooqSegmentStore store = db.store(2);
      AtomicInteger rewinds = new AtomicInteger();
      EngineEvents counted =
          new EngineEvents() {
            @Override
            public void segmentRewound() {
              rewinds.incrementAndGet();
            }
          };
      try (InProcessLeaf leaf =
          new InProcessLeaf(
              store,
              Ticker.systemTicker(),
              EngineConfig.DEFAULTS.withBackoff(Duration.ofMillis(20), Duration.ofMillis(200)),
              server -> server.events(counted))) {
        leaf.blocking.createTag(
            CreateTagRequest.newBuilder().setBizTag("order").setStep(100).build());
        NextIdRequest next = NextIdRequest.newBuilder().setBizTag("order").build();
        Set<Long> issued = new HashSet<>();
        long last = 0;
        // Past the rewind, on until a load has met it (the buffered segments come first).
        for (int i = 0; i < 1_000 || rewinds.get() == 0 && i < 200_000; i++) {
          if (i == 250) {
            try (Connection c = DriverManager.getConnection(db.url, db.user, db.password);
                Statement s = c.createStatement()) {
              assertEquals(
                  1,
                  s.executeUpdate("UPDATE leaf_alloc SET max_id = 1 WHERE biz_tag = 'order'"),
                  "rewound");
            }
          }
          long id = leaf.blocking.nextId(next).getId();
          assertTrue(issued.add(id), "ID " + id + " issued twice (call " + i + ")");
          assertTrue(id > last, "IDs keep increasing: " + id + " after " + last);
          last = id;
        }
        ReservedIds reserved =
            leaf.blocking.reserveIds(
                ReserveIdsRequest.newBuilder().setBizTag("order").setCount(5_000).build());
        long count = 0;
        for (IdRange r : reserved.getRangesList()) {
          for (long id = r.getStart(); id < r.getEnd(); id++, count++) {
            assertTrue(issued.add(id), "reserved ID " + id + " issued before");
          }
        }
        assertEquals(5_000, count, "the whole reservation: " + reserved);
        assertTrue(rewinds.get() >= 1, "the rewind was counted: " + rewinds.get());
      }
    }
  }
}
