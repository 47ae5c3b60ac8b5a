package example.jpa;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;

/**
 * A uniquely named database on the MariaDB at 127.0.0.1:3306 (root, no password), created for one
 * test and dropped by {@link #close()}; without a reachable MariaDB the test is skipped with a
 * SKIPPED line, or fails when {@code LEAF_REQUIRE_MYSQL=1} (as CI sets it). {@code
 * LEAF_TEST_MYSQL_URL} replaces the server's URL, as for the server's tests.
 */
final class MariaDbDatabase implements AutoCloseable {

  static final String BASE = envOr("LEAF_TEST_MYSQL_URL", "jdbc:mysql://127.0.0.1:3306/");
  static final String OPTIONS = "?useSSL=false&allowPublicKeyRetrieval=true";
  static final String USER = "root";
  static final String PASSWORD = "";

  final String name;

  private MariaDbDatabase(String name) {
    this.name = name;
  }

  /** Creates the database, or skips (fails under {@code LEAF_REQUIRE_MYSQL=1}) the test. */
  static MariaDbDatabase createOrSkip() {
    String name = "leaf_example_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    try (Connection c = DriverManager.getConnection(BASE + OPTIONS, USER, PASSWORD);
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      String reason =
          "MariaDB not reachable at " + BASE + " (" + e.getMessage().lines().findFirst().orElse("")
              + ")";
      if ("1".equals(System.getenv("LEAF_REQUIRE_MYSQL"))) {
        throw new IllegalStateException(reason + " and LEAF_REQUIRE_MYSQL=1", e);
      }
      System.out.println("SKIPPED MariaDB case of the jpa example: " + reason);
      Assumptions.abort("SKIPPED: " + reason);
    }
    return new MariaDbDatabase(name);
  }

  private static String envOr(String name, String fallback) {
    String v = System.getenv(name);
    return v == null || v.isEmpty() ? fallback : v;
  }

  /** The JDBC URL of this database. */
  String url() {
    return BASE + name + OPTIONS;
  }

  @Override
  public void close() throws SQLException {
    try (Connection c = DriverManager.getConnection(BASE + OPTIONS, USER, PASSWORD);
        Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + name);
    }
  }
}
