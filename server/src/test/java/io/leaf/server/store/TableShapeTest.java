package io.leaf.server.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.InstantSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code leaf_alloc} tables other than Leaf's own: those Leaf can use are used as they are, the
 * others are refused when the store opens, with one line naming the table, column and type.
 */
abstract class TableShapeTest {

  private TestDatabase db;

  abstract TestDatabase newDatabase();

  /** The name the database gives {@code VARCHAR} in its metadata. */
  abstract String varcharTypeName();

  /** An auto-increment {@code id} primary key column in this database's DDL. */
  String autoIncrementIdColumn() {
    return "id BIGINT NOT NULL PRIMARY KEY AUTO_INCREMENT";
  }

  /** A date-and-time column type without a time zone in this database's DDL. */
  String datetimeType() {
    return "DATETIME";
  }

  @BeforeEach
  void setUp() {
    db = newDatabase();
  }

  @AfterEach
  void tearDown() throws Exception {
    if (db != null) {
      db.close();
    }
  }

  void execute(String sql) throws SQLException {
    try (Connection c =
            DriverManager.getConnection(DataSources.connectionUrl(db.url), db.user, db.password);
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private JooqSegmentStore store() {
    return new JooqSegmentStore(db.pool(2), DataSources.dialectOf(db.url), InstantSource.system());
  }

  private void assertUnusable(String message) {
    JooqSegmentStore store = store();
    UnusableTableException e =
        assertThrows(UnusableTableException.class, store::createSchemaIfMissing);
    assertEquals(message, e.getMessage());
    assertEquals(
        message,
        assertThrows(UnusableTableException.class, () -> store.getTag("any")).getMessage(),
        "calls fail with the same reason");
  }

  @Test
  void open_maxIdNotAnInteger_refusedNamingTableColumnAndType() throws SQLException {
    execute(
        "CREATE TABLE leaf_alloc (biz_tag VARCHAR(128) NOT NULL PRIMARY KEY,"
            + " max_id VARCHAR(20) NOT NULL, step INT NOT NULL, description VARCHAR(256),"
            + " update_time BIGINT NOT NULL)");
    assertUnusable(
        "table leaf_alloc: column max_id has type " + varcharTypeName() + "; Leaf needs BIGINT");
  }

  @Test
  void open_updateTimeText_refused() throws SQLException {
    execute(
        "CREATE TABLE leaf_alloc (biz_tag VARCHAR(128) NOT NULL PRIMARY KEY,"
            + " max_id BIGINT NOT NULL, step INT NOT NULL, description VARCHAR(256),"
            + " update_time VARCHAR(32))");
    assertUnusable(
        "table leaf_alloc: column update_time has type "
            + varcharTypeName()
            + "; Leaf needs BIGINT (epoch millis) or TIMESTAMP/DATETIME");
  }

  @Test
  void open_noStepColumn_refusedNamingIt() throws SQLException {
    execute(
        "CREATE TABLE leaf_alloc (biz_tag VARCHAR(128) NOT NULL PRIMARY KEY,"
            + " max_id BIGINT NOT NULL, description VARCHAR(256), update_time BIGINT NOT NULL)");
    assertUnusable(
        "table leaf_alloc has no column step; Leaf needs biz_tag, max_id, step,"
            + " description, update_time");
  }

  @Test
  void open_bizTagNotUnique_refused() throws SQLException {
    execute(
        "CREATE TABLE leaf_alloc ("
            + autoIncrementIdColumn()
            + ","
            + " biz_tag VARCHAR(128) NOT NULL, max_id BIGINT NOT NULL, step INT NOT NULL,"
            + " description VARCHAR(256), update_time BIGINT NOT NULL)");
    assertUnusable(
        "table leaf_alloc: column biz_tag is neither the primary key nor unique;"
            + " Leaf needs one row per tag");
  }

  @Test
  void open_otherColumnNotNullWithoutDefault_refused() throws SQLException {
    execute(
        "CREATE TABLE leaf_alloc (biz_tag VARCHAR(128) NOT NULL PRIMARY KEY,"
            + " max_id BIGINT NOT NULL, step INT NOT NULL, description VARCHAR(256),"
            + " update_time BIGINT NOT NULL, owner VARCHAR(64) NOT NULL)");
    assertUnusable(
        "table leaf_alloc: column owner is NOT NULL without a default; Leaf's"
            + " inserts set only biz_tag, max_id, step, description, update_time");
  }

  @Test
  void rowWithNullStepOrMaxId_listedAsZeroAndItsSegmentRefusedWithTheReason() throws SQLException {
    execute(
        "CREATE TABLE leaf_alloc (biz_tag VARCHAR(128) NOT NULL, max_id BIGINT,"
            + " step INT, description VARCHAR(256), update_time BIGINT, PRIMARY KEY (biz_tag))");
    execute("INSERT INTO leaf_alloc (biz_tag, max_id, step) VALUES ('nostep', 7, NULL)");
    execute("INSERT INTO leaf_alloc (biz_tag, max_id, step) VALUES ('nomax', NULL, 5)");
    JooqSegmentStore store = store();
    store.createSchemaIfMissing();

    assertEquals(new TagRecord("nostep", 7, 0, null, 0), store.getTag("nostep").orElseThrow());
    assertEquals(2, store.listTags(null, 10).tags().size(), "one odd row does not break a page");
    InvalidTagStateException noStep =
        assertThrows(
            InvalidTagStateException.class,
            () -> store.nextSegment("nostep", SegmentStore.TABLE_STEP));
    assertEquals(
        "biz_tag nostep has a NULL step in leaf_alloc; set it in the table or with" + " UpdateStep",
        noStep.getMessage());
    InvalidTagStateException noMax =
        assertThrows(InvalidTagStateException.class, () -> store.nextSegment("nomax", 10));
    assertEquals(
        "biz_tag nomax has a NULL max_id in leaf_alloc; set it in the table", noMax.getMessage());
  }

  @Test
  void writes_nullableDatetimeWithoutDefault_writtenAsTheDatabasesNow() throws SQLException {
    // Another variant found in the wild: update_time DATETIME NULL, no default, no ON UPDATE,
    // and extra columns with defaults. Only Leaf's own writes set update_time here.
    execute(
        "CREATE TABLE leaf_alloc (biz_tag VARCHAR(128) NOT NULL, max_id BIGINT,"
            + " step INT, description VARCHAR(256), update_time "
            + datetimeType()
            + " NULL,"
            + " created_by VARCHAR(64) NOT NULL DEFAULT 'dba', PRIMARY KEY (biz_tag))");
    execute("INSERT INTO leaf_alloc (biz_tag, max_id, step) VALUES ('legacy', 7, 3)");
    JooqSegmentStore store = store();
    store.createSchemaIfMissing();

    assertEquals(
        new TagRecord("legacy", 7, 3, null, 0),
        store.getTag("legacy").orElseThrow(),
        "a NULL update_time reads as 0");
    long before = System.currentTimeMillis();
    assertNow(before, store.createTag("new", 1, 10, "d").updateTime());
    assertEquals(
        new SegmentRange(7, 10, 3, 3), store.nextSegment("legacy", SegmentStore.TABLE_STEP));
    assertNow(before, store.getTag("legacy").orElseThrow().updateTime());
    execute("UPDATE leaf_alloc SET update_time = NULL");
    assertNow(before, store.updateStep("legacy", 5).updateTime());
  }

  private static void assertNow(long before, long updateTime) {
    // A second either side: DATETIME keeps whole seconds.
    assertTrue(
        updateTime >= before - 1_000 && updateTime <= System.currentTimeMillis() + 1_000,
        "update_time "
            + updateTime
            + " is the database's now, in epoch millis (test began at "
            + before
            + ")");
  }
}
