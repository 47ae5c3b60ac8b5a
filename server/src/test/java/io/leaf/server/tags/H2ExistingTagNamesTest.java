package io.leaf.server.tags;

import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;

class H2ExistingTagNamesTest extends ExistingTagNamesTest {

  @Override
  TestDatabase database() {
    return TestDatabases.h2();
  }

  @Override
  String meituanDdl() {
    return """
        CREATE TABLE leaf_alloc (
          biz_tag varchar(128) NOT NULL DEFAULT '',
          max_id bigint(20) NOT NULL DEFAULT '1',
          step int(11) NOT NULL,
          description varchar(256) DEFAULT NULL,
          update_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
          PRIMARY KEY (biz_tag)
        ) ENGINE=InnoDB""";
  }
}
