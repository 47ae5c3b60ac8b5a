package io.leaf.server.store;

import io.leaf.server.testing.MeituanTables;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;

/** Meituan Leaf's table on H2 (unquoted names: H2 folds them to upper case like Leaf's own). */
class H2MeituanTableStoreTest extends MeituanTableStoreTest {
  @Override
  TestDatabase newDatabase() {
    return TestDatabases.h2();
  }

  @Override
  String meituanDdl() {
    return MeituanTables.H2;
  }
}
