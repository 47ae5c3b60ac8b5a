package io.leaf.server.region;

import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;

/** {@link UnreadableRegionTablePostgresTest} on MariaDB. */
class UnreadableRegionTableMariaDbTest extends UnreadableRegionTablePostgresTest {
  @Override
  TestDatabase newDatabase() {
    return TestDatabases.mariaDb();
  }

  @Override
  boolean deniesWithoutGrantEvenWhenMissing() {
    return true;
  }
}
