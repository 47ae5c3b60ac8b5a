package io.leaf.server.store;

import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;

class MariaDbTableShapeTest extends TableShapeTest {
  @Override
  TestDatabase newDatabase() {
    return TestDatabases.mariaDb();
  }

  @Override
  String varcharTypeName() {
    return "VARCHAR";
  }
}
