package io.leaf.server.snowflake;

import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;

/** The worker-lease contract on PostgreSQL: claims, renewals and expiry by its clock. */
class PostgresWorkerLeaseStoreTest extends WorkerLeaseStoreContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabases.postgres();
  }
}
