package io.leaf.server.store;

import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;

class PostgresRegionFenceTest extends RegionFenceContractTest {
  @Override
  TestDatabase newDatabase() {
    return TestDatabases.postgres();
  }
}
