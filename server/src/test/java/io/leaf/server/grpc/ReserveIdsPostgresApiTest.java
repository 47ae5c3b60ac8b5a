package io.leaf.server.grpc;

import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;

/**
 * {@link ReserveIdsApiTest} on PostgreSQL: ReserveIds: shapes, limits and statuses as on H2 and
 * MariaDB.
 */
class ReserveIdsPostgresApiTest extends ReserveIdsApiTest {
  @Override
  TestDatabase newDatabase() {
    return TestDatabases.postgres();
  }
}
