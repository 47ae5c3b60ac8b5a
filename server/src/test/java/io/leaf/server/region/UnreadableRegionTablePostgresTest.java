package io.leaf.server.region;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.leaf.server.store.DataSources;
import io.leaf.server.store.JooqSegmentStore;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.InstantSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A server whose user may not read an existing {@code leaf_region} takes nothing, with or without
 * {@code --region}: the row it cannot see may name the region whose IDs it would repeat.
 */
class UnreadableRegionTablePostgresTest {

  private TestDatabase db;
  private HikariDataSource userPool;

  TestDatabase newDatabase() {
    return TestDatabases.postgres();
  }

  /**
   * MySQL/MariaDB answer "SELECT command denied" for a table the user holds no grant on, whether it
   * exists or not.
   */
  boolean deniesWithoutGrantEvenWhenMissing() {
    return false;
  }

  @AfterEach
  void tearDown() throws Exception {
    if (userPool != null) {
      userPool.close();
    }
    if (db != null) {
      db.close();
    }
  }

  @Test
  void nextSegment_regionTableCreatedUnreadableByPlainServersUser_refusedNamingTheGrant()
      throws Exception {
    db = newDatabase();
    JooqSegmentStore admin = db.store(2);
    admin.createTag("order", 1, 100, null);
    try (Connection c = DriverManager.getConnection(db.url, db.user, db.password);
        Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS leaf_region");
    }
    // Server S0 without --region, its user granted leaf_alloc alone.
    TestDatabase.Login a = db.createUser("SELECT, INSERT, UPDATE");
    userPool = DataSources.create(db.url, a.user(), a.password(), 2);
    JooqSegmentStore local =
        new JooqSegmentStore(
            userPool,
            DataSources.dialectOf(db.url),
            InstantSource.system(),
            RegionalSegmentStore.fence(Region.NONE));
    JooqRegionStore regionsOfA =
        new JooqRegionStore(userPool, DataSources.dialectOf(db.url), InstantSource.system());
    RegionalSegmentStore plain = new RegionalSegmentStore(local, Region.NONE, regionsOfA);
    if (deniesWithoutGrantEvenWhenMissing()) {
      RegionMismatchException e =
          assertThrows(
              RegionMismatchException.class,
              plain::verify,
              "no grant on leaf_region: the user cannot tell a missing table from a hidden one");
      assertTrue(e.getMessage().contains("SELECT"), e.getMessage());
      assertThrows(
          RegionChangedException.class,
          () -> local.nextSegment("order", SegmentStore.TABLE_STEP),
          "nor can the take");
      assertEquals(1, admin.getTag("order").orElseThrow().maxId(), "nothing was taken");
      return;
    }
    plain.verify();
    assertEquals(
        1,
        plain.nextSegment("order", SegmentStore.TABLE_STEP).start(),
        "no leaf_region yet: served");

    // Another server's user claims region 1/2; the table is its, not readable by S0's user.
    new JooqRegionStore(db.pool(1), DataSources.dialectOf(db.url), InstantSource.system())
        .claim(new StoredRegion(RegionCheck.RULE, 1, 2));

    RegionChangedException e =
        assertThrows(
            RegionChangedException.class,
            () -> plain.nextSegment("order", SegmentStore.TABLE_STEP),
            "a take that cannot read leaf_region is refused");
    assertTrue(
        e.getMessage().contains("leaf_region") && e.getMessage().contains("SELECT"),
        e.getMessage());
    assertEquals(
        101, admin.getTag("order").orElseThrow().maxId(), "the refused take moved nothing");
    RegionMismatchException lease =
        assertThrows(
            RegionMismatchException.class,
            () -> RegionCheck.recheck(Region.NONE, regionsOfA),
            "a worker lease's recheck refuses too");
    assertTrue(lease.getMessage().contains("SELECT"), lease.getMessage());
    RegionMismatchException start =
        assertThrows(
            RegionMismatchException.class,
            () -> RegionCheck.verify(Region.NONE, regionsOfA),
            "a restarted S0 is refused");
    assertTrue(start.getMessage().contains("SELECT"), start.getMessage());

    db.grant(a, "SELECT", "leaf_region");
    RegionChangedException granted =
        assertThrows(
            RegionChangedException.class,
            () -> plain.nextSegment("order", SegmentStore.TABLE_STEP),
            "granted SELECT, the server reads the region and is told to restart with it");
    assertTrue(granted.getMessage().contains("--region 1/2"), granted.getMessage());
  }
}
