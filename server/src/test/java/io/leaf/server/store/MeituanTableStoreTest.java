package io.leaf.server.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * The store contract on Meituan Leaf's own {@code leaf_alloc} ({@code scripts/leaf_alloc.sql}:
 * {@code biz_tag} primary key, no {@code id}, {@code update_time TIMESTAMP} kept by the database),
 * created before Leaf opens the database, plus Meituan Leaf servers sharing the table.
 */
abstract class MeituanTableStoreTest extends DatabaseSegmentStoreTest {

  /** Meituan Leaf's DDL as this database takes it. */
  abstract String meituanDdl();

  @Override
  void createTable(TestDatabase db) throws SQLException {
    execute(meituanDdl());
  }

  private Connection connect() throws SQLException {
    TestDatabase db = database();
    return DriverManager.getConnection(DataSources.connectionUrl(db.url), db.user, db.password);
  }

  private void execute(String sql) throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  /**
   * What a Meituan Leaf server does to take a segment ({@code
   * IDAllocDao.updateMaxIdAndGetLeafAlloc}): in one transaction, {@code max_id += step}, then read
   * the row; its range is {@code [max_id - step, max_id)}.
   */
  private long[] meituanTakesSegment(String tag) throws SQLException {
    try (Connection c = connect()) {
      c.setAutoCommit(false);
      try (PreparedStatement update =
              c.prepareStatement("UPDATE leaf_alloc SET max_id = max_id + step WHERE biz_tag = ?");
          PreparedStatement select =
              c.prepareStatement(
                  "SELECT biz_tag, max_id, step FROM leaf_alloc WHERE biz_tag = ?")) {
        update.setString(1, tag);
        assertEquals(1, update.executeUpdate(), "Meituan's UPDATE finds the row");
        select.setString(1, tag);
        try (ResultSet rs = select.executeQuery()) {
          assertTrue(rs.next());
          long maxId = rs.getLong("max_id");
          long step = rs.getLong("step");
          c.commit();
          return new long[] {maxId - step, maxId};
        }
      }
    }
  }

  @Test
  void nextSegment_meituanServersTakingInBetween_continuesWithTheirRangeAndNoOverlap()
      throws SQLException {
    execute(
        "INSERT INTO leaf_alloc (biz_tag, max_id, step, description)"
            + " VALUES ('order-service', 1, 1000, 'orders')");

    long[] meituanFirst = meituanTakesSegment("order-service");
    TagRecord row = store.getTag("order-service").orElseThrow();
    SegmentRange leafFirst = store.nextSegment("order-service", SegmentStore.TABLE_STEP);
    long[] meituanSecond = meituanTakesSegment("order-service");
    SegmentRange leafSecond = store.nextSegment("order-service", 500);

    assertEquals(1, meituanFirst[0], "Meituan's first segment");
    assertEquals(1001, meituanFirst[1]);
    assertEquals(
        new SegmentRange(row.maxId(), row.maxId() + row.step(), 1000, 1000),
        leafFirst,
        "Leaf takes [max_id, max_id + step), exactly what Meituan Leaf would take next");
    assertEquals(new SegmentRange(1001, 2001, 1000, 1000), leafFirst);
    assertEquals(2001, meituanSecond[0], "Meituan continues after Leaf's segment");
    assertEquals(3001, meituanSecond[1]);
    assertEquals(
        new SegmentRange(3001, 3501, 500, 1000),
        leafSecond,
        "Leaf continues after Meituan's segment, with its own dynamic step");
    assertEquals(3501, store.getTag("order-service").orElseThrow().maxId());
  }

  @Test
  void getTag_rowWrittenByMeituan_updateTimeOfTheDatabaseInEpochMillis() throws SQLException {
    long before = System.currentTimeMillis();
    execute("INSERT INTO leaf_alloc (biz_tag, max_id, step) VALUES ('meituan-row', 5001, 2000)");
    long after = System.currentTimeMillis();

    TagRecord row = store.getTag("meituan-row").orElseThrow();

    assertEquals(new TagRecord("meituan-row", 5001, 2000, null, row.updateTime()), row);
    assertTrue(
        row.updateTime() >= before - 1_000 && row.updateTime() <= after + 1_000,
        "update_time as epoch millis: " + row.updateTime() + " in [" + before + ", " + after + "]");
    assertEquals(1, store.listTags(null, 10).tags().size(), "listed without an id column");
  }

  @Test
  void writes_updateTimeOld_setToTheDatabasesNow() throws SQLException {
    store.createTag("stale", 1, 10, null);
    long before = System.currentTimeMillis();
    for (Runnable write :
        new Runnable[] {
          () -> store.nextSegment("stale", SegmentStore.TABLE_STEP),
          () -> store.updateStep("stale", 20)
        }) {
      execute(
          "UPDATE leaf_alloc SET update_time = TIMESTAMP '2001-02-03 04:05:06'"
              + " WHERE biz_tag = 'stale'");
      write.run();
      long updated = store.getTag("stale").orElseThrow().updateTime();
      assertTrue(
          updated >= before - 1_000 && updated <= System.currentTimeMillis() + 1_000,
          "update_time written as the database's now: " + updated);
    }
  }
}
