package io.leaf.server.tags;

import io.leaf.server.testing.MeituanTables;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;

class H2ExistingTagNamesTest extends ExistingTagNamesTest {

  @Override
  TestDatabase database() {
    return TestDatabases.h2();
  }

  @Override
  String meituanDdl() {
    return MeituanTables.H2;
  }
}
