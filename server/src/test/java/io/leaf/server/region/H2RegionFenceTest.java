package io.leaf.server.region;

import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;

class H2RegionFenceTest extends RegionFenceContractTest {
  @Override
  TestDatabase newDatabase() {
    return TestDatabases.h2();
  }
}
