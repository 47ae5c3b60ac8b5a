package io.leaf.server.store;

import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;

/**
 * Meituan Leaf's table as it is kept on PostgreSQL: Meituan's columns and key, {@code
 * update_time} a {@code TIMESTAMP} the database fills in.
 */
class PostgresMeituanTableStoreTest extends MeituanTableStoreTest {
  @Override
  TestDatabase newDatabase() {
    return TestDatabases.postgres();
  }

  @Override
  String meituanDdl() {
    return """
        CREATE TABLE leaf_alloc (
          biz_tag varchar(128) NOT NULL DEFAULT '',
          max_id bigint NOT NULL DEFAULT 1,
          step int NOT NULL,
          description varchar(256) DEFAULT NULL,
          update_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
          PRIMARY KEY (biz_tag)
        )""";
  }
}
