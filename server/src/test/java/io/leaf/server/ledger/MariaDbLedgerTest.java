package io.leaf.server.ledger;

import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;

class MariaDbLedgerTest extends LedgerContractTest {
  @Override
  TestDatabase newDatabase() {
    return TestDatabases.mariaDb();
  }
}
