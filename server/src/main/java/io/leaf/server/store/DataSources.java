package io.leaf.server.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.util.Locale;
import org.jooq.SQLDialect;
import org.jooq.tools.jdbc.JDBCUtils;

/** Builds the HikariCP pool for a JDBC URL and names the jOOQ dialect that URL implies. */
public final class DataSources {

  /** How long a request for a connection may wait before the database counts as unavailable. */
  public static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(3);

  /** The URLs {@link #dialectOf} accepts, as a person reads them. */
  public static final String SUPPORTED_URLS = "jdbc:mysql: (MySQL or MariaDB) or jdbc:h2:";

  private DataSources() {}

  public static HikariDataSource create(String url, String user, String password, int poolSize) {
    HikariConfig config = new HikariConfig();
    config.setPoolName("leaf-db");
    config.setJdbcUrl(durable(url));
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(poolSize);
    config.setMinimumIdle(Math.min(2, poolSize));
    config.setConnectionTimeout(CONNECTION_TIMEOUT.toMillis());
    config.setValidationTimeout(Math.min(2_000, CONNECTION_TIMEOUT.toMillis() - 250));
    // Start even when the database is down: health reports NOT_SERVING until it answers.
    config.setInitializationFailTimeout(-1);
    if (url.startsWith("jdbc:mysql:")) {
      config.addDataSourceProperty("connectTimeout", "3000");
      config.addDataSourceProperty("socketTimeout", "10000");
      config.addDataSourceProperty("cachePrepStmts", "true");
      config.addDataSourceProperty("useServerPrepStmts", "true");
    }
    return new HikariDataSource(config);
  }

  /**
   * The URL to connect with: an H2 URL gets {@code WRITE_DELAY=0} unless it sets its own. H2
   * otherwise writes commits to its file up to half a second later, and a segment whose
   * {@code max_id} bump dies with a killed process would be handed out again after a restart.
   */
  static String durable(String url) {
    if (url.startsWith("jdbc:h2:") && !url.toUpperCase(Locale.ROOT).contains(";WRITE_DELAY=")) {
      return url + ";WRITE_DELAY=0";
    }
    return url;
  }

  /**
   * MySQL for {@code jdbc:mysql:} (MySQL or MariaDB through mysql-connector-j), H2 for
   * {@code jdbc:h2:}; no other driver ships with the server.
   */
  public static SQLDialect dialectOf(String url) {
    SQLDialect dialect = JDBCUtils.dialect(url);
    return switch (dialect.family()) {
      case MYSQL, H2 -> dialect;
      default -> throw new IllegalArgumentException(
          "unsupported database URL (expected " + SUPPORTED_URLS + "): " + url);
    };
  }
}
