package io.leaf.server.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Map;
import org.jooq.SQLDialect;
import org.junit.jupiter.api.Test;

class DatabaseProductTest {

  /** Metadata answering only what {@link DatabaseProduct#of} asks. */
  private static DatabaseMetaData metadata(String name, String version, int major, int minor) {
    Map<String, Object> answers =
        Map.of(
            "getDatabaseProductName",
            name,
            "getDatabaseProductVersion",
            version,
            "getDatabaseMajorVersion",
            major,
            "getDatabaseMinorVersion",
            minor);
    return (DatabaseMetaData)
        Proxy.newProxyInstance(
            DatabaseMetaData.class.getClassLoader(),
            new Class<?>[] {DatabaseMetaData.class},
            (proxy, method, args) -> {
              if (!answers.containsKey(method.getName())) {
                throw new UnsupportedOperationException(method.getName());
              }
              return answers.get(method.getName());
            });
  }

  @Test
  void of_mariaDb10ThroughConnectorJ_mariaDbDialectAndRealVersion() throws SQLException {
    DatabaseProduct p =
        DatabaseProduct.of(
            metadata("MySQL", "5.5.5-10.11.19-MariaDB-0+deb12u1", 5, 5), SQLDialect.MYSQL);
    assertEquals(
        new DatabaseProduct(SQLDialect.MARIADB, "MariaDB", "10.11.19-MariaDB-0+deb12u1", 10, 11),
        p);
    assertTrue(p.dialectSupportsVersion(), "jOOQ's MARIADB dialect covers 10.11: no warning");
  }

  @Test
  void of_mariaDb11WithoutHandshakePrefix_mariaDb() throws SQLException {
    DatabaseProduct p =
        DatabaseProduct.of(metadata("MySQL", "11.4.2-MariaDB", 11, 4), SQLDialect.MYSQL);
    assertEquals(SQLDialect.MARIADB, p.dialect());
    assertEquals(11, p.major());
  }

  @Test
  void of_mysql_mysqlDialect() throws SQLException {
    DatabaseProduct p = DatabaseProduct.of(metadata("MySQL", "8.0.36", 8, 0), SQLDialect.MYSQL);
    assertEquals(new DatabaseProduct(SQLDialect.MYSQL, "MySQL", "8.0.36", 8, 0), p);
    assertTrue(p.dialectSupportsVersion());
    assertFalse(
        DatabaseProduct.of(metadata("MySQL", "5.7.44", 5, 7), SQLDialect.MYSQL)
            .dialectSupportsVersion(),
        "an old MySQL is still reported");
  }

  @Test
  void of_h2_h2Dialect() throws SQLException {
    assertEquals(
        SQLDialect.H2,
        DatabaseProduct.of(metadata("H2", "2.3.232 (2024-08-11)", 2, 3), SQLDialect.H2).dialect());
  }

  @Test
  void of_postgresql_postgresDialect() throws SQLException {
    DatabaseProduct p =
        DatabaseProduct.of(
            metadata("PostgreSQL", "15.20 (Debian 15.20-0+deb12u1)", 15, 20), SQLDialect.POSTGRES);
    assertEquals(
        new DatabaseProduct(
            SQLDialect.POSTGRES, "PostgreSQL", "15.20 (Debian 15.20-0+deb12u1)", 15, 20),
        p);
    assertTrue(p.isPostgres(), "PostgreSQL takes segments with UPDATE ... RETURNING");
    assertFalse(
        DatabaseProduct.of(metadata("MySQL", "8.0.36", 8, 0), SQLDialect.MYSQL).isPostgres());
  }
}
