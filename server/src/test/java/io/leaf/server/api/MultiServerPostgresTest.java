package io.leaf.server.api;

import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;

/** {@link MultiServerMariaDbTest} on one PostgreSQL database: no ID twice across three servers. */
class MultiServerPostgresTest extends MultiServerMariaDbTest {
  @Override
  TestDatabase newDatabase() {
    return TestDatabases.postgres();
  }
}
