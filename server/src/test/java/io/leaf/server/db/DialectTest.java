package io.leaf.server.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.jooq.SQLDialect;
import org.junit.jupiter.api.Test;

class DialectTest {

  @Test
  void of_eachProduct_itsOwnDialect() {
    assertSame(Dialect.POSTGRES, Dialect.of(SQLDialect.POSTGRES));
    assertSame(Dialect.MYSQL, Dialect.of(SQLDialect.MYSQL));
    assertSame(Dialect.MYSQL, Dialect.of(SQLDialect.MARIADB), "MariaDB takes as MySQL does");
    assertSame(Dialect.H2, Dialect.of(SQLDialect.H2));
  }

  @Test
  void ofUrl_eachPrefix_itsJooqDialect() {
    assertEquals(SQLDialect.POSTGRES, Dialect.ofUrl("jdbc:postgresql://h/leaf"));
    assertEquals(SQLDialect.MYSQL, Dialect.ofUrl("jdbc:mysql://h/leaf"));
    assertEquals(SQLDialect.H2, Dialect.ofUrl("jdbc:h2:mem:leaf"));
  }

  @Test
  void latestRead_innoDbOnly_locksInShareMode() {
    assertEquals("SELECT 1 LOCK IN SHARE MODE", Dialect.MYSQL.latestRead("SELECT 1"));
    assertEquals("SELECT 1", Dialect.POSTGRES.latestRead("SELECT 1"));
    assertEquals("SELECT 1", Dialect.H2.latestRead("SELECT 1"));
  }

  @Test
  void schemaResource_postgresItsOwn() {
    assertEquals("/sql/schema-postgresql.sql", Dialect.POSTGRES.schemaResource());
    assertEquals("/sql/schema.sql", Dialect.MYSQL.schemaResource());
    assertEquals("/sql/schema.sql", Dialect.H2.schemaResource());
  }
}
