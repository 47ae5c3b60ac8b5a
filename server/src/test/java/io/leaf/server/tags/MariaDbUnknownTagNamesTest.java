package io.leaf.server.tags;

import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;

class MariaDbUnknownTagNamesTest extends UnknownTagNamesTest {

  @Override
  TestDatabase database() {
    return TestDatabases.mariaDb();
  }

  @Override
  boolean leafTableIsAscii() {
    return true;
  }

  @Override
  String narrowTableDdl(int length) {
    return "CREATE TABLE leaf_alloc (id BIGINT NOT NULL AUTO_INCREMENT,"
        + " biz_tag VARCHAR(" + length + ") CHARACTER SET ascii COLLATE ascii_bin NOT NULL,"
        + " max_id BIGINT NOT NULL DEFAULT 1, step INT NOT NULL,"
        + " description VARCHAR(256) CHARACTER SET utf8mb4, update_time BIGINT NOT NULL,"
        + " PRIMARY KEY (id), CONSTRAINT uk_leaf_alloc_biz_tag UNIQUE (biz_tag))";
  }
}
