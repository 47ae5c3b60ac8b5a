package io.leaf.server.ledger;

import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;

class H2LedgerTest extends LedgerContractTest {
  @Override
  TestDatabase newDatabase() {
    return TestDatabases.h2();
  }
}
