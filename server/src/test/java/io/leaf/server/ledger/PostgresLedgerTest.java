package io.leaf.server.ledger;

import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;

class PostgresLedgerTest extends LedgerContractTest {
  @Override
  TestDatabase newDatabase() {
    return TestDatabases.postgres();
  }
}
