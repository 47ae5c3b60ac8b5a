package io.leaf.server.grpc;

import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import org.junit.jupiter.api.Tag;

/**
 * {@link LeafServiceApiTest} on PostgreSQL: Every RPC and every row of the error table as on H2 and
 * MariaDB.
 */
@Tag("slow")
class LeafServicePostgresApiTest extends LeafServiceApiTest {
  @Override
  TestDatabase newDatabase() {
    return TestDatabases.postgres();
  }
}
