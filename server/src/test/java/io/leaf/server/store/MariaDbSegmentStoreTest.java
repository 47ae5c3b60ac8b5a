package io.leaf.server.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import org.jooq.SQLDialect;
import org.junit.jupiter.api.Test;

class MariaDbSegmentStoreTest extends DatabaseSegmentStoreTest {
  @Override
  TestDatabase newDatabase() {
    return TestDatabases.mariaDb();
  }

  @Test
  void createSchemaIfMissing_mariaDbBehindAMysqlUrl_mariaDbDialect() {
    assertEquals(
        SQLDialect.MARIADB,
        ((JooqSegmentStore) store).dialect(),
        "jdbc:mysql: reaches MariaDB here; jOOQ renders for what the server is");
  }

  @Test
  void listTags_nonAsciiKeyAgainstAsciiColumn_invalidPageKeyNotAnOutage() {
    store.createTag("a", 1, 10, null);
    InvalidPageKeyException e =
        assertThrows(InvalidPageKeyException.class, () -> store.listTags("\u00e9", 10));
    assertTrue(e.getMessage().contains("collation"), e.getMessage());
  }

  @Test
  void nextSegment_rowLockedPastLockWaitTimeout_isRetriedNotReported() throws Exception {
    store.createTag("locked", 1, 100, null);
    TestDatabase db = database();
    String url = db.url + "&sessionVariables=innodb_lock_wait_timeout=1";
    try (HikariDataSource pool = DataSources.create(url, db.user, db.password, 1);
        Connection holder = DriverManager.getConnection(db.url, db.user, db.password)) {
      holder.setAutoCommit(false);
      try (Statement s = holder.createStatement()) {
        s.executeQuery("SELECT max_id FROM leaf_alloc WHERE biz_tag = 'locked' FOR UPDATE");
      }
      List<Long> sleeps = new ArrayList<>();
      ConflictRetry retry =
          new ConflictRetry(
              4,
              Duration.ofMillis(1),
              nanos -> {
                sleeps.add(nanos);
                try {
                  holder.commit();
                } catch (SQLException e) {
                  throw new IllegalStateException(e);
                }
              },
              () -> 0);
      JooqSegmentStore waiting =
          new JooqSegmentStore(
              pool, DataSources.dialectOf(url), InstantSource.system(), retry, TakeGuard.NONE);

      SegmentRange range = waiting.nextSegment("locked", SegmentStore.TABLE_STEP);

      assertEquals(
          new SegmentRange(1, 101, 100, 100), range, "the take succeeds once the lock is gone");
      assertEquals(
          1,
          sleeps.size(),
          "two lock-wait timeouts (the second after an immediate retry), then one pause: "
              + sleeps);
      assertEquals(101, store.getTag("locked").orElseThrow().maxId(), "exactly one segment taken");
    }
  }
}
