package io.leaf.server.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;

/**
 * Databases for tests: a fresh H2 file, or a uniquely named MariaDB/MySQL or PostgreSQL database
 * dropped on {@link TestDatabase#close()}.
 *
 * <p>MariaDB is found at {@code LEAF_TEST_MYSQL_URL} (default {@code jdbc:mysql://127.0.0.1:3306/},
 * user {@code root}, empty password). When it cannot be reached the test is skipped with a message
 * on stderr, unless {@code LEAF_REQUIRE_MYSQL=1} (set by {@code .ci/run}), which fails it.
 *
 * <p>PostgreSQL is found at {@code LEAF_TEST_POSTGRES_URL} (default {@code
 * jdbc:postgresql://127.0.0.1:5432/}, user {@code postgres}, empty password: trust authentication);
 * without it the test is skipped the same way, or fails under {@code LEAF_REQUIRE_POSTGRES=1}.
 */
public final class TestDatabases {

  private static final String MYSQL_BASE =
      envOr("LEAF_TEST_MYSQL_URL", "jdbc:mysql://127.0.0.1:3306/");
  private static final String MYSQL_USER = envOr("LEAF_TEST_MYSQL_USER", "root");
  private static final String MYSQL_PASSWORD = envOr("LEAF_TEST_MYSQL_PASSWORD", "");
  private static final String MYSQL_OPTIONS = "?useSSL=false&allowPublicKeyRetrieval=true";

  private static final String POSTGRES_BASE =
      envOr("LEAF_TEST_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/");
  private static final String POSTGRES_USER = envOr("LEAF_TEST_POSTGRES_USER", "postgres");
  private static final String POSTGRES_PASSWORD = envOr("LEAF_TEST_POSTGRES_PASSWORD", "");

  private TestDatabases() {}

  /**
   * H2, MariaDB and PostgreSQL, each by name, for
   * {@code @MethodSource("io.leaf.server.testing.TestDatabases#all")}.
   */
  public static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> all() {
    return java.util.stream.Stream.of(
        org.junit.jupiter.params.provider.Arguments.of(
            "H2", (java.util.function.Supplier<TestDatabase>) TestDatabases::h2),
        org.junit.jupiter.params.provider.Arguments.of(
            "MariaDB", (java.util.function.Supplier<TestDatabase>) TestDatabases::mariaDb),
        org.junit.jupiter.params.provider.Arguments.of(
            "PostgreSQL", (java.util.function.Supplier<TestDatabase>) TestDatabases::postgres));
  }

  /**
   * A new, uniquely named PostgreSQL database; skips (or fails under CI) when none is reachable.
   */
  public static TestDatabase postgres() {
    String name = "leaf_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    String admin = POSTGRES_BASE + "postgres";
    try (Connection c = DriverManager.getConnection(admin, POSTGRES_USER, POSTGRES_PASSWORD);
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      String reason = "PostgreSQL not reachable at " + POSTGRES_BASE + " (" + e.getMessage() + ")";
      if ("1".equals(System.getenv("LEAF_REQUIRE_POSTGRES"))) {
        throw new IllegalStateException(reason + " and LEAF_REQUIRE_POSTGRES=1", e);
      }
      System.err.println("[leaf-tests] SKIPPED PostgreSQL test: " + reason);
      Assumptions.abort("SKIPPED: " + reason);
    }
    return new TestDatabase(
        POSTGRES_BASE + name,
        POSTGRES_USER,
        POSTGRES_PASSWORD,
        name,
        () -> {
          try (Connection c = DriverManager.getConnection(admin, POSTGRES_USER, POSTGRES_PASSWORD);
              Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
          }
        });
  }

  /** A database in its own H2 file under a new temporary directory. */
  public static TestDatabase h2() {
    try {
      Path dir = Files.createTempDirectory("leaf-h2-");
      String url = "jdbc:h2:file:" + dir.resolve("leaf").toAbsolutePath() + ";MODE=MySQL";
      return new TestDatabase(url, "sa", "", null, () -> deleteTree(dir));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A database in its own H2 file that several processes may open at once (H2's automatic mixed
   * mode: the first opens the file and serves the others over TCP).
   */
  public static TestDatabase h2Shared() {
    try {
      Path dir = Files.createTempDirectory("leaf-h2-");
      String url =
          "jdbc:h2:file:" + dir.resolve("leaf").toAbsolutePath() + ";MODE=MySQL;AUTO_SERVER=TRUE";
      return new TestDatabase(url, "sa", "", null, () -> deleteTree(dir));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** A new, uniquely named MariaDB database; skips (or fails under CI) when none is reachable. */
  public static TestDatabase mariaDb() {
    String name = "leaf_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    try (Connection c =
            DriverManager.getConnection(MYSQL_BASE + MYSQL_OPTIONS, MYSQL_USER, MYSQL_PASSWORD);
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      String reason = "MariaDB/MySQL not reachable at " + MYSQL_BASE + " (" + e.getMessage() + ")";
      if ("1".equals(System.getenv("LEAF_REQUIRE_MYSQL"))) {
        throw new IllegalStateException(reason + " and LEAF_REQUIRE_MYSQL=1", e);
      }
      System.err.println("[leaf-tests] SKIPPED MySQL test: " + reason);
      Assumptions.abort("SKIPPED: " + reason);
    }
    String url = MYSQL_BASE + name + MYSQL_OPTIONS;
    return new TestDatabase(
        url,
        MYSQL_USER,
        MYSQL_PASSWORD,
        name,
        () -> {
          try (Connection c =
                  DriverManager.getConnection(
                      MYSQL_BASE + MYSQL_OPTIONS, MYSQL_USER, MYSQL_PASSWORD);
              Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name);
          }
        });
  }

  private static void deleteTree(Path dir) throws Exception {
    try (var paths = Files.walk(dir)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  private static String envOr(String name, String fallback) {
    String v = System.getenv(name);
    return v == null || v.isEmpty() ? fallback : v;
  }
}
