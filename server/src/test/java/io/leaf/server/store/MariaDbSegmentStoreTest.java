package io.leaf.server.store;

import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;

class MariaDbSegmentStoreTest extends SegmentStoreContractTest {
  @Override
  TestDatabase newDatabase() {
    return TestDatabases.mariaDb();
  }
}
