package io.leaf.server.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.testing.MeituanTables;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;

/** Meituan Leaf's table on MariaDB, created by Meituan's own {@code scripts/leaf_alloc.sql}. */
class MariaDbMeituanTableStoreTest extends MeituanTableStoreTest {
  @Override
  TestDatabase newDatabase() {
    return TestDatabases.mariaDb();
  }

  @Override
  String meituanDdl() {
    return MeituanTables.MARIADB;
  }

  /** The database's default collation (here utf8mb4_general_ci) ignores case. */
  @Override
  boolean tagsDifferingInCaseAreTwoRows() {
    return false;
  }

  @Test
  void updateTime_sessionsInOtherTimeZones_sameEpochMillis() {
    TestDatabase db = database();
    JooqSegmentStore shanghai = storeInTimeZone(db, "%2B08:00");
    JooqSegmentStore newYork = storeInTimeZone(db, "-05:00");
    long before = System.currentTimeMillis();

    long written = shanghai.createTag("zoned", 1, 10, null).updateTime();

    assertTrue(
        written >= before - 1_000 && written <= System.currentTimeMillis() + 1_000,
        "epoch millis whatever the session's zone: " + written + ", test began at " + before);
    assertEquals(
        written,
        newYork.getTag("zoned").orElseThrow().updateTime(),
        "a TIMESTAMP is one instant for every session");
    assertEquals(written, store.getTag("zoned").orElseThrow().updateTime());
  }

  private static JooqSegmentStore storeInTimeZone(TestDatabase db, String zone) {
    String url = db.url + "&sessionVariables=time_zone='" + zone + "'";
    JooqSegmentStore zoned =
        new JooqSegmentStore(db.pool(url, 1), DataSources.dialectOf(url), InstantSource.system());
    zoned.createSchemaIfMissing();
    return zoned;
  }
}
