package io.leaf.server.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.leaf.server.db.Dialect;
import io.leaf.server.db.H2Url;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jooq.SQLDialect;

/** Builds the HikariCP pool for a JDBC URL and names the jOOQ dialect that URL implies. */
public final class DataSources {

  /** How long a request for a connection may wait before the database counts as unavailable. */
  public static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(3);

  /** The URLs {@link #dialectOf} accepts, as a person reads them. */
  public static final String SUPPORTED_URLS =
      "jdbc:mysql: (MySQL or MariaDB), jdbc:postgresql: or jdbc:h2:";

  private static final String MYSQL = "jdbc:mysql:";
  private static final String POSTGRESQL = "jdbc:postgresql:";
  private static final String H2 = "jdbc:h2:";
  private static final String H2_MEM = "jdbc:h2:mem:";

  /** The database of a {@code jdbc:mysql://hosts/database?options} URL (group 1). */
  private static final Pattern MYSQL_DATABASE =
      Pattern.compile("^jdbc:mysql(?::[a-z]+)?://[^/]*/?([^?]*)");

  private static final Pattern URL_PASSWORD = Pattern.compile("(?i)((?:[?&;]|^)password=)[^&;]*");
  private static final Pattern URL_USER_INFO = Pattern.compile("(//[^/@:]*:)[^/@]*@");

  private DataSources() {}

  /** {@code url} with any password in it ({@code password=…} or {@code user:pass@}) masked. */
  public static String redact(String url) {
    String out = URL_PASSWORD.matcher(url).replaceAll("$1***");
    return URL_USER_INFO.matcher(out).replaceAll("$1***@");
  }

  public static HikariDataSource create(String url, String user, String password, int poolSize) {
    // The no-argument pool starts on its first connection request, not here: a server that
    // cannot bind its port exits before it ever touches the database.
    HikariDataSource pool = new HikariDataSource();
    config(url, user, password, poolSize).copyStateTo(pool);
    return pool;
  }

  /** The pool's settings {@link #create} applies. */
  static HikariConfig config(String url, String user, String password, int poolSize) {
    HikariConfig config = new HikariConfig();
    config.setPoolName("leaf-db");
    config.setJdbcUrl(connectionUrl(url));
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(poolSize);
    config.setMinimumIdle(Math.min(2, poolSize));
    config.setConnectionTimeout(CONNECTION_TIMEOUT.toMillis());
    config.setValidationTimeout(Math.min(2_000, CONNECTION_TIMEOUT.toMillis() - 250));
    // Start even when the database is down: health reports NOT_SERVING until it answers.
    config.setInitializationFailTimeout(-1);
    Dialect dialect = Dialect.of(Dialect.ofUrl(url));
    // Stated, not detected: HikariCP reads the default on its first connection, and when that
    // read fails with a connection error (a slow database) it keeps -1 and asks every later
    // connection for level -1, which every driver refuses: the pool never connects again.
    config.setTransactionIsolation(dialect.isolation());
    dialect.configure(config);
    return config;
  }

  /**
   * Closes {@code pool} after the server's last statement. An H2 database this process opened
   * closes with its last connection, so with the pool; one kept in a file whose URL sets a {@code
   * DB_CLOSE_DELAY} would outlive it, and with {@code DB_CLOSE_ON_EXIT=FALSE} nothing else would
   * close it cleanly before the process exits, so it is shut down first ({@code SHUTDOWN}). A
   * failure is the caller's to log; the pool is closed in any case.
   */
  public static void close(HikariDataSource pool, String url) throws java.sql.SQLException {
    try {
      String delay = setting(url, "DB_CLOSE_DELAY");
      if (H2Url.embeddedFile(url) && delay != null && !delay.equals("0") && !pool.isClosed()) {
        try (java.sql.Connection c = pool.getConnection();
            java.sql.Statement s = c.createStatement()) {
          s.execute("SHUTDOWN");
        }
      }
    } finally {
      pool.close();
    }
  }

  /** The URL to connect with: an H2 URL with Leaf's settings ({@link H2Url#connectionUrl}). */
  static String connectionUrl(String url) {
    return H2Url.connectionUrl(url);
  }

  /**
   * Why Leaf cannot use {@code url}, or empty when it can: only {@code jdbc:mysql:}, {@code
   * jdbc:postgresql:} and {@code jdbc:h2:} URLs; a MySQL URL that names its database; an H2 URL in
   * H2's MySQL mode (or with no MODE, which Leaf adds); an in-memory H2 database with a name (an
   * unnamed one is private to each connection, so every pooled connection would see its own empty
   * table). The reason reads after the URL's name, e.g. {@code "--db-url " + reason}.
   */
  public static Optional<String> urlProblem(String url) {
    if (!url.startsWith(MYSQL) && !url.startsWith(H2) && !url.startsWith(POSTGRESQL)) {
      return Optional.of("must start with " + SUPPORTED_URLS + ", got " + redact(url));
    }
    Matcher mysql = MYSQL_DATABASE.matcher(url);
    if (mysql.find() && mysql.group(1).isBlank()) {
      return Optional.of(
          "names no database (statements would fail with \"No database"
              + " selected\"), e.g. jdbc:mysql://127.0.0.1:3306/leaf; got "
              + redact(url));
    }
    if (url.startsWith(H2_MEM) && url.substring(H2_MEM.length()).split(";", 2)[0].isBlank()) {
      return Optional.of(
          H2_MEM
              + " needs a database name (without one every pooled connection"
              + " opens its own empty database), e.g. "
              + H2_MEM
              + "leaf; got "
              + redact(url));
    }
    String mode = url.startsWith(H2) ? setting(url, "MODE") : null;
    if (mode != null && !mode.equalsIgnoreCase("MySQL") && !mode.equalsIgnoreCase("MariaDB")) {
      return Optional.of(
          "sets MODE="
              + mode
              + ", but Leaf's SQL needs H2's MySQL mode (leave"
              + " MODE out or set MODE=MySQL); got "
              + redact(url));
    }
    return Optional.empty();
  }

  private static String setting(String url, String name) {
    return H2Url.setting(url, name);
  }

  /**
   * The dialect a URL implies before the database has been asked: MySQL for {@code jdbc:mysql:}
   * (MySQL or MariaDB through mysql-connector-j; the store tells MariaDB apart once connected),
   * PostgreSQL for {@code jdbc:postgresql:}, H2 for {@code jdbc:h2:}; no other driver ships with
   * the server.
   *
   * @throws IllegalArgumentException with {@link #urlProblem}'s reason
   */
  public static SQLDialect dialectOf(String url) {
    urlProblem(url)
        .ifPresent(
            problem -> {
              throw new IllegalArgumentException("unusable database URL: " + problem);
            });
    return Dialect.ofUrl(url);
  }
}
