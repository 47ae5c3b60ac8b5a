package io.leaf.server.store;

import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;

class MariaDbRegionFenceTest extends RegionFenceContractTest {
  @Override
  TestDatabase newDatabase() {
    return TestDatabases.mariaDb();
  }
}
