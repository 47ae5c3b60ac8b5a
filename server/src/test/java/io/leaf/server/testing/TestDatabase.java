package io.leaf.server.testing;

import com.zaxxer.hikari.HikariDataSource;
import io.leaf.server.store.DataSources;
import io.leaf.server.store.JooqSegmentStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** A test database: its URL and credentials; {@link #close()} closes pools and drops it. */
public final class TestDatabase implements AutoCloseable {

  /** Cleanup that may throw. */
  public interface Cleanup {
    void run() throws Exception;
  }

  /** A database user's name and password. */
  public record Login(String user, String password) {}

  public final String url;
  public final String user;
  public final String password;

  /** The MariaDB/MySQL or PostgreSQL database's name; null for H2. */
  public final String name;

  private final Cleanup cleanup;
  private final List<HikariDataSource> pools = new ArrayList<>();
  private final List<Cleanup> users = new ArrayList<>();
  private boolean closed;

  TestDatabase(String url, String user, String password, String name, Cleanup cleanup) {
    this.url = url;
    this.user = user;
    this.password = password;
    this.name = name;
    this.cleanup = cleanup;
  }

  /** Whether this is a PostgreSQL database. */
  public boolean isPostgres() {
    return url.startsWith("jdbc:postgresql:");
  }

  /**
   * A new MariaDB/MySQL or PostgreSQL user with a unique name, granted {@code privileges} (e.g.
   * {@code "SELECT, INSERT, UPDATE"}) on this database's {@code leaf_alloc} and nothing else;
   * dropped on {@link #close()}. The table must exist.
   */
  public synchronized Login createUser(String privileges) throws SQLException {
    if (name == null) {
      throw new IllegalStateException("users are created on MariaDB/MySQL/PostgreSQL only");
    }
    String login = "leaf_u_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    String secret = UUID.randomUUID().toString();
    if (isPostgres()) {
      return createPostgresUser(login, secret, privileges);
    }
    try (Connection c = DriverManager.getConnection(url, user, password);
        Statement s = c.createStatement()) {
      s.execute("CREATE USER '" + login + "'@'%' IDENTIFIED BY '" + secret + "'");
      users.add(
          () -> {
            try (Connection d = DriverManager.getConnection(url, user, password);
                Statement drop = d.createStatement()) {
              drop.execute("DROP USER IF EXISTS '" + login + "'@'%'");
            }
          });
      s.execute("GRANT " + privileges + " ON " + name + ".leaf_alloc TO '" + login + "'@'%'");
    }
    return new Login(login, secret);
  }

  private Login createPostgresUser(String login, String secret, String privileges)
      throws SQLException {
    try (Connection c = DriverManager.getConnection(url, user, password);
        Statement s = c.createStatement()) {
      s.execute("CREATE ROLE " + login + " LOGIN PASSWORD '" + secret + "'");
      users.add(
          () -> {
            // The role's grants live in this database; they go before the role can.
            try (Connection d = DriverManager.getConnection(url, user, password);
                Statement drop = d.createStatement()) {
              drop.execute("DROP OWNED BY " + login);
              drop.execute("DROP ROLE IF EXISTS " + login);
            }
          });
      s.execute("GRANT " + privileges + " ON leaf_alloc TO " + login);
    }
    return new Login(login, secret);
  }

  /** A pool on this database, closed with it. */
  public HikariDataSource pool(int size) {
    return pool(url, size);
  }

  /** A pool on {@code url} (this database's URL with options added), closed with it. */
  public synchronized HikariDataSource pool(String url, int size) {
    HikariDataSource ds = DataSources.create(url, user, password, size);
    pools.add(ds);
    return ds;
  }

  /** A store on a new pool with its schema applied. */
  public JooqSegmentStore store(int poolSize) {
    JooqSegmentStore store =
        new JooqSegmentStore(pool(poolSize), DataSources.dialectOf(url), InstantSource.system());
    store.createSchemaIfMissing();
    return store;
  }

  /** A store on a new pool with its schema applied, recording takes as {@code ledger} says. */
  public LedgeredStore store(
      int poolSize, io.leaf.server.ledger.LedgerSettings ledger, InstantSource clock) {
    JooqSegmentStore store =
        new JooqSegmentStore(
            pool(poolSize),
            DataSources.dialectOf(url),
            clock,
            new io.leaf.server.ledger.RecordedTakes(ledger, clock));
    store.createSchemaIfMissing();
    return LedgeredStore.database(store, ledger);
  }

  /**
   * Grants {@code privileges} on {@code table} of this database to {@code login} (made by {@link
   * #createUser}).
   */
  public void grant(Login login, String privileges, String table) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, user, password);
        Statement s = c.createStatement()) {
      s.execute(
          "GRANT "
              + privileges
              + " ON "
              + (isPostgres() ? table : name + "." + table)
              + " TO "
              + (isPostgres() ? login.user() : "'" + login.user() + "'@'%'"));
    }
  }

  @Override
  public synchronized void close() throws Exception {
    if (closed) {
      return;
    }
    closed = true;
    pools.forEach(HikariDataSource::close);
    pools.clear();
    try {
      for (Cleanup dropUser : users) {
        dropUser.run();
      }
    } finally {
      cleanup.run();
    }
  }
}
