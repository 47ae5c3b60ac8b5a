package io.leaf.server.tags;

import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;

class H2UnknownTagNamesTest extends UnknownTagNamesTest {

  @Override
  TestDatabase database() {
    return TestDatabases.h2();
  }

  @Override
  boolean leafTableIsAscii() {
    return false;
  }

  @Override
  String narrowTableDdl(int length) {
    return "CREATE TABLE leaf_alloc (id BIGINT NOT NULL AUTO_INCREMENT,"
        + " biz_tag VARCHAR("
        + length
        + ") NOT NULL, max_id BIGINT NOT NULL DEFAULT 1,"
        + " step INT NOT NULL, description VARCHAR(512), update_time BIGINT NOT NULL,"
        + " PRIMARY KEY (id), CONSTRAINT uk_leaf_alloc_biz_tag UNIQUE (biz_tag))";
  }
}
