package io.leaf.server.region;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.store.SegmentRange;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import java.sql.Connection;
import java.time.InstantSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * On MariaDB a take's transaction opens InnoDB's snapshot at its first SELECT of {@code
 * leaf_alloc}; the fence still reads the region row committed after that.
 */
class MariaDbFenceReadTest {

  private TestDatabase db;

  @AfterEach
  void tearDown() throws Exception {
    if (db != null) {
      db.close();
    }
  }

  @Test
  void check_claimCommittedAfterTheTakesFirstSelect_refused() throws Exception {
    db = TestDatabases.mariaDb();
    db.store(2).createTag("order", 1, 100, null);
    JooqRegionStore regions =
        new JooqRegionStore(db.pool(1), SQLDialect.MYSQL, InstantSource.system());
    DSLContext settings = io.leaf.server.store.OwnTable.dsl(db.pool(1), SQLDialect.MYSQL);
    try (Connection c = db.pool(1).getConnection()) {
      c.setAutoCommit(false);
      DSLContext take = DSL.using(c, SQLDialect.MYSQL, settings.settings());
      // The take's own first statement, as MySqlDialect#take runs it: the snapshot opens here.
      take.fetch("SELECT max_id, step FROM leaf_alloc WHERE biz_tag = 'order'");
      regions.claim(new StoredRegion("high-bits", 1, 2));
      take.execute("UPDATE leaf_alloc SET max_id = max_id + 100 WHERE biz_tag = 'order'");

      RegionChangedException e =
          assertThrows(
              RegionChangedException.class,
              () ->
                  RegionFence.withoutRegion()
                      .check(c, take, "order", new SegmentRange(1, 101, 100, 100)),
              "the claim committed while the take ran is seen by the fence");
      assertTrue(e.getMessage().contains("1/2"), e.getMessage());
      c.rollback();
    }
  }
}
