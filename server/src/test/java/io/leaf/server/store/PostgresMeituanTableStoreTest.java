package io.leaf.server.store;

import io.leaf.server.testing.MeituanTables;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import org.junit.jupiter.api.Tag;

/**
 * Meituan Leaf's table as it is kept on PostgreSQL: Meituan's columns and key, {@code update_time}
 * a {@code TIMESTAMP} the database fills in.
 */
@Tag("slow")
class PostgresMeituanTableStoreTest extends MeituanTableStoreTest {
  @Override
  TestDatabase newDatabase() {
    return TestDatabases.postgres();
  }

  @Override
  String meituanDdl() {
    return MeituanTables.POSTGRES;
  }
}
