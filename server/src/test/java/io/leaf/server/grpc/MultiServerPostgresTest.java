package io.leaf.server.grpc;

import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import org.junit.jupiter.api.Tag;

/** {@link MultiServerMariaDbTest} on one PostgreSQL database: no ID twice across three servers. */
@Tag("slow")
class MultiServerPostgresTest extends MultiServerMariaDbTest {
  @Override
  TestDatabase newDatabase() {
    return TestDatabases.postgres();
  }
}
