package io.leaf.server.grpc;

import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/** {@link MultiServerMariaDbTest} on one PostgreSQL database: no ID twice across three servers. */
@Tag("slow")
@Execution(ExecutionMode.CONCURRENT)
@Order(1) // among the longest: started first
@ResourceLock("MultiServerPostgresTest")
class MultiServerPostgresTest extends MultiServerMariaDbTest {
  @Override
  TestDatabase newDatabase() {
    return TestDatabases.postgres();
  }
}
