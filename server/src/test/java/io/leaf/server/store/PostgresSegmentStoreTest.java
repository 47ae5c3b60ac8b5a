package io.leaf.server.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.testing.HookedDataSource;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.SQLDialect;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;

class PostgresSegmentStoreTest extends DatabaseSegmentStoreTest {
  @Override
  TestDatabase newDatabase() {
    return TestDatabases.postgres();
  }

  private void execute(String sql) throws SQLException {
    TestDatabase db = database();
    try (Connection c = DriverManager.getConnection(db.url, db.user, db.password);
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  @Test
  void createSchemaIfMissing_postgresUrl_postgresDialect() {
    assertEquals(
        SQLDialect.POSTGRES,
        ((JooqSegmentStore) store).dialect(),
        "jdbc:postgresql: renders PostgreSQL's SQL");
  }

  @Test
  void nextSegment_connectionKilledRightAfterTheUpdate_rangeStillReturnedNoSecondStatement()
      throws Exception {
    store.createTag("one", 1, 100, null);
    TestDatabase db = database();
    HookedDataSource hooked = new HookedDataSource(db.pool(1));
    JooqSegmentStore hookedStore =
        new JooqSegmentStore(hooked, DataSources.dialectOf(db.url), InstantSource.system());
    hookedStore.createSchemaIfMissing();
    AtomicInteger killed = new AtomicInteger();
    hooked.afterNextUpdate(
        raw -> {
          int pid = raw.unwrap(PGConnection.class).getBackendPID();
          execute("SELECT pg_terminate_backend(" + pid + ")");
          killed.set(pid);
        });

    SegmentRange range = hookedStore.nextSegment("one", SegmentStore.TABLE_STEP);

    assertTrue(killed.get() > 0, "the hook ran after the UPDATE returned");
    assertEquals(
        new SegmentRange(1, 101, 100, 100),
        range,
        "the UPDATE's own reply carries the range: nothing runs on the connection after it");
    assertEquals(101, store.getTag("one").orElseThrow().maxId());
  }

  @Test
  void nextSegment_commitReportedWithSyncReplicationWarning_rangeNeverUsed() throws Exception {
    store.createTag("sync", 1, 100, null);
    // What PostgreSQL answers when the wait for the synchronous standby is cancelled: the
    // statement succeeds, the commit stays local, and only a WARNING says so. A trigger raises
    // the same warning in the same reply.
    execute(
        """
        CREATE FUNCTION leaf_sync_cancelled() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          RAISE WARNING 'canceling wait for synchronous replication due to user request'
            USING DETAIL = 'The transaction has already committed locally, but might not have'
              || ' been replicated to the standby.';
          RETURN NEW;
        END $$\
        """);
    execute(
        "CREATE TRIGGER leaf_sync_cancelled BEFORE UPDATE ON leaf_alloc"
            + " FOR EACH ROW EXECUTE FUNCTION leaf_sync_cancelled()");

    StoreUnavailableException e =
        assertThrows(
            StoreUnavailableException.class,
            () -> store.nextSegment("sync", SegmentStore.TABLE_STEP));

    assertTrue(
        e.getMessage().contains("[1, 101)")
            && e.getMessage().contains("not used")
            && e.getMessage().contains("synchronous replication"),
        e.getMessage());
    assertEquals(
        101, store.getTag("sync").orElseThrow().maxId(), "the commit happened: its range is a gap");
    execute("DROP TRIGGER leaf_sync_cancelled ON leaf_alloc");
    assertEquals(
        new SegmentRange(101, 201, 100, 100),
        store.nextSegment("sync", SegmentStore.TABLE_STEP),
        "the next take follows the gap");
  }

  @Test
  void nextSegment_stepNotPositive_refusedWithTheReasonAndNothingTaken() throws Exception {
    store.createTag("zero", 5, 10, null);
    execute("UPDATE leaf_alloc SET step = 0 WHERE biz_tag = 'zero'");

    InvalidTagStateException e =
        assertThrows(
            InvalidTagStateException.class,
            () -> store.nextSegment("zero", SegmentStore.TABLE_STEP));

    assertEquals(
        "biz_tag zero has step 0 in leaf_alloc; set a positive step with UpdateStep",
        e.getMessage());
    assertEquals(
        new SegmentRange(5, 25, 20, 0),
        store.nextSegment("zero", 20),
        "a dynamic step does not depend on the table's");
  }

  @Test
  void listTags_tagsOutsideAscii_pagedInByteOrder() {
    for (String t : new String[] {"b", "B", "\u00e9", "a"}) {
      store.createTag(t, 1, 10, null);
    }
    assertEquals(
        java.util.List.of("B", "a", "b", "\u00e9"),
        store.listTags(null, 10).tags().stream().map(TagRecord::bizTag).toList(),
        "COLLATE \"C\": byte order, as on MySQL");
    assertEquals(
        java.util.List.of("\u00e9"),
        store.listTags("b", 10).tags().stream().map(TagRecord::bizTag).toList());
  }
}
