package io.leaf.server;

import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

/**
 * {@link LeastPrivilegeMariaDbTest} on PostgreSQL: a role granted {@code SELECT, INSERT, UPDATE ON
 * leaf_alloc} runs a server; one missing a privilege is refused with the privilege named.
 */
class LeastPrivilegePostgresTest extends LeastPrivilegeMariaDbTest {

  @Override
  TestDatabase newDatabase() {
    return TestDatabases.postgres();
  }

  /** PostgreSQL names the table; Leaf adds the privileges the statement needs. */
  @Override
  String denied(String privilege) {
    return "permission denied for table leaf_alloc (to "
        + (privilege.equals("INSERT")
            ? "create tag new Leaf needs the INSERT"
            : "take a segment of existing Leaf needs the UPDATE");
  }

  /**
   * The test server trusts every local login whatever its password, so the role is refused the way
   * a DBA locks one out.
   */
  @Override
  TestDatabase.Login refusedLogin(TestDatabase db, TestDatabase.Login login) throws Exception {
    try (Connection c = DriverManager.getConnection(db.url, db.user, db.password);
        Statement s = c.createStatement()) {
      s.execute("ALTER ROLE " + login.user() + " NOLOGIN");
    }
    return login;
  }

  @Override
  String loginRefusal() {
    return "is not permitted to log in";
  }
}
