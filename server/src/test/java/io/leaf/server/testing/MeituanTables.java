package io.leaf.server.testing;

/** Meituan Leaf's own {@code leaf_alloc} DDL as each database takes it, for tests on its table. */
public final class MeituanTables {

  /** On H2 (MySQL mode). */
  public static final String H2 =
      """
      CREATE TABLE leaf_alloc (
        biz_tag varchar(128) NOT NULL DEFAULT '',
        max_id bigint(20) NOT NULL DEFAULT '1',
        step int(11) NOT NULL,
        description varchar(256) DEFAULT NULL,
        update_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
        PRIMARY KEY (biz_tag)
      ) ENGINE=InnoDB\
      """;

  /** On MariaDB/MySQL, as Meituan ships it. */
  public static final String MARIADB =
      """
      CREATE TABLE `leaf_alloc` (
        `biz_tag` varchar(128)  NOT NULL DEFAULT '',
        `max_id` bigint(20) NOT NULL DEFAULT '1',
        `step` int(11) NOT NULL,
        `description` varchar(256)  DEFAULT NULL,
        `update_time` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
        PRIMARY KEY (`biz_tag`)
      ) ENGINE=InnoDB\
      """;

  /** On PostgreSQL: Meituan's columns and key, {@code update_time} filled in by the database. */
  public static final String POSTGRES =
      """
      CREATE TABLE leaf_alloc (
        biz_tag varchar(128) NOT NULL DEFAULT '',
        max_id bigint NOT NULL DEFAULT 1,
        step int NOT NULL,
        description varchar(256) DEFAULT NULL,
        update_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
        PRIMARY KEY (biz_tag)
      )\
      """;

  private MeituanTables() {}
}
