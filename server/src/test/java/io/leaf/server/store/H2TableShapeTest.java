package io.leaf.server.store;

import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;

class H2TableShapeTest extends TableShapeTest {
  @Override
  TestDatabase newDatabase() {
    return TestDatabases.h2();
  }

  @Override
  String varcharTypeName() {
    return "CHARACTER VARYING";
  }
}
