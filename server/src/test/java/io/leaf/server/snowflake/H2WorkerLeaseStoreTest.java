package io.leaf.server.snowflake;

import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;

class H2WorkerLeaseStoreTest extends WorkerLeaseStoreContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabases.h2();
  }
}
