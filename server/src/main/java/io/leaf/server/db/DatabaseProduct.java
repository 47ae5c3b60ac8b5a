package io.leaf.server.db;

import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jooq.SQLDialect;

/**
 * The database server behind a connection, as its JDBC metadata describes it, and the jOOQ dialect
 * to use with it. MySQL and MariaDB share the {@code jdbc:mysql:} URL and driver, so only the
 * server tells them apart: MariaDB names itself in its version string.
 *
 * <p>mysql-connector-j reports MariaDB 10.x as version 5.5 (MariaDB starts its handshake version
 * with {@code 5.5.5-} for old clients), which made jOOQ warn of a "Version mismatch" at every
 * start; {@link #version()} is the real version, and {@link #dialectSupportsVersion()} jOOQ's own
 * check made on it.
 *
 * <p>This is the one place a database's kind is decided from a live connection; what differs by
 * kind is asked of it ({@link #isPostgres()}, {@link #rules()}), so a store on another table (such
 * as a lease table) picks its SQL the same way.
 *
 * @param name {@code MySQL}, {@code MariaDB}, {@code PostgreSQL} or {@code H2}
 * @param version the server's version without MariaDB's {@code 5.5.5-} prefix
 */
public record DatabaseProduct(
    SQLDialect dialect, String name, String version, int major, int minor) {

  private static final String MARIADB_HANDSHAKE_PREFIX = "5.5.5-";
  private static final Pattern MAJOR_MINOR = Pattern.compile("^(\\d+)\\.(\\d+)");

  /**
   * @param fromUrl the dialect the URL implies ({@link Dialect#ofUrl})
   */
  public static DatabaseProduct of(DatabaseMetaData md, SQLDialect fromUrl) throws SQLException {
    String version = md.getDatabaseProductVersion();
    if (fromUrl.family() == SQLDialect.POSTGRES) {
      return new DatabaseProduct(
          SQLDialect.POSTGRES,
          "PostgreSQL",
          version,
          md.getDatabaseMajorVersion(),
          md.getDatabaseMinorVersion());
    }
    if (fromUrl.family() == SQLDialect.H2) {
      return new DatabaseProduct(
          SQLDialect.H2, "H2", version, md.getDatabaseMajorVersion(), md.getDatabaseMinorVersion());
    }
    boolean mariaDb =
        (md.getDatabaseProductName() + " " + version).toLowerCase(Locale.ROOT).contains("mariadb");
    if (!mariaDb) {
      return new DatabaseProduct(
          SQLDialect.MYSQL,
          "MySQL",
          version,
          md.getDatabaseMajorVersion(),
          md.getDatabaseMinorVersion());
    }
    if (version.startsWith(MARIADB_HANDSHAKE_PREFIX)) {
      version = version.substring(MARIADB_HANDSHAKE_PREFIX.length());
    }
    Matcher m = MAJOR_MINOR.matcher(version);
    return m.find()
        ? new DatabaseProduct(
            SQLDialect.MARIADB,
            "MariaDB",
            version,
            Integer.parseInt(m.group(1)),
            Integer.parseInt(m.group(2)))
        : new DatabaseProduct(SQLDialect.MARIADB, "MariaDB", version, 0, 0);
  }

  /**
   * Whether this is PostgreSQL: a segment is one {@code UPDATE … RETURNING}, the table comes from
   * {@code sql/schema-postgresql.sql}, errors carry only a SQLState.
   */
  public boolean isPostgres() {
    return dialect.family() == SQLDialect.POSTGRES;
  }

  /** What differs for this product: its {@link Dialect}. */
  public Dialect rules() {
    return Dialect.of(dialect);
  }

  /** Whether jOOQ maintains {@link #dialect()} for this version of the server. */
  public boolean dialectSupportsVersion() {
    return dialect.supportsDatabaseVersion(major, minor, version);
  }

  @Override
  public String toString() {
    return name + " " + version + " (jOOQ dialect " + dialect + ")";
  }
}
