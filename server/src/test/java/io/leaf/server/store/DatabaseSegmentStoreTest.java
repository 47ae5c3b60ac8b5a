package io.leaf.server.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.testing.TestDatabase;
import org.junit.jupiter.api.Test;

/** The store contract on a real database: {@link JooqSegmentStore} over a fresh test database. */
abstract class DatabaseSegmentStoreTest extends SegmentStoreContractTest {

  private TestDatabase db;
  private JooqSegmentStore jooq;

  abstract TestDatabase newDatabase();

  /** Prepares the fresh database before the store opens it; by default Leaf creates its table. */
  void createTable(TestDatabase db) throws Exception {}

  /** The database of the running test. */
  TestDatabase database() {
    return db;
  }

  @Override
  SegmentStore newStore() {
    db = newDatabase();
    try {
      createTable(db);
    } catch (Exception e) {
      throw new IllegalStateException("could not prepare the table", e);
    }
    jooq = db.store(4);
    return jooq;
  }

  @Override
  void closeStore() throws Exception {
    // Null when newDatabase() skipped the test (no MariaDB reachable).
    if (db != null) {
      db.close();
    }
  }

  @Test
  void setBack_afterFails_maxIdStaysAtEndAndTheFailureIsThrown() {
    store.createTag("back", 1, 10, null);
    SegmentRange taken = store.nextSegment("back", SegmentStore.TABLE_STEP);
    RuntimeException e =
        assertThrows(
            RuntimeException.class,
            () ->
                jooq.setBack(
                    "back",
                    taken.start() + 3,
                    taken.end(),
                    (tx, now) -> tx.execute("INSERT INTO no_such_table VALUES (1)")));
    assertTrue(
        e.getMessage().toLowerCase(java.util.Locale.ROOT).contains("no_such_table"),
        "the record's own failure: " + e.getMessage());
    assertEquals(taken.end(), store.getTag("back").orElseThrow().maxId(), "nothing handed back");
    assertEquals(
        taken.end(),
        store.nextSegment("back", SegmentStore.TABLE_STEP).start(),
        "the next take starts where the first ended");
  }

  @Test
  void createSchemaIfMissing_calledTwice_isIdempotent() {
    store.createTag("a", 1, 10, null);
    jooq.createSchemaIfMissing();
    assertTrue(store.getTag("a").isPresent(), "schema re-run must keep rows");
  }
}
