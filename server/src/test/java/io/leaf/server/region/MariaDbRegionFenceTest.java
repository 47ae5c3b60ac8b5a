package io.leaf.server.region;

import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;

class MariaDbRegionFenceTest extends RegionFenceContractTest {
  @Override
  TestDatabase newDatabase() {
    return TestDatabases.mariaDb();
  }
}
