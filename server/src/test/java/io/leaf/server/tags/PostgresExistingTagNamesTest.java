package io.leaf.server.tags;

import io.leaf.server.testing.MeituanTables;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;

class PostgresExistingTagNamesTest extends ExistingTagNamesTest {

  @Override
  TestDatabase database() {
    return TestDatabases.postgres();
  }

  @Override
  String meituanDdl() {
    return MeituanTables.POSTGRES;
  }
}
