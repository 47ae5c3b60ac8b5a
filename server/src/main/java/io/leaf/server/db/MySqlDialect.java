package io.leaf.server.db;

import com.zaxxer.hikari.HikariConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.OptionalLong;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Query;
import org.jooq.impl.DSL;

/**
 * MySQL and MariaDB (Galera too), through mysql-connector-j: the take's new {@code max_id} comes
 * back in the UPDATE's own reply, never from a later query a multi-host driver could send to
 * another server.
 */
public final class MySqlDialect extends Dialect {

  MySqlDialect() {}

  /** {@inheritDoc} {@code UNIX_TIMESTAMP} of a {@code TIMESTAMP(3)} keeps the milliseconds. */
  @Override
  public Field<Long> nowMillis() {
    return DSL.field("CAST(UNIX_TIMESTAMP(CURRENT_TIMESTAMP(3)) * 1000 AS SIGNED)", Long.class);
  }

  @Override
  public Field<Long> epochMillis(Field<?> timestamp) {
    return DSL.field("CAST(UNIX_TIMESTAMP({0}) * 1000 AS SIGNED)", Long.class, timestamp);
  }

  /**
   * {@inheritDoc} InnoDB's REPEATABLE READ snapshot opens at a transaction's first read, so the
   * read locks ({@code LOCK IN SHARE MODE}, which MySQL and MariaDB both accept) to see the latest
   * committed row.
   */
  @Override
  public String latestRead(String select) {
    return select + " LOCK IN SHARE MODE";
  }

  @Override
  public String isolation() {
    return "TRANSACTION_REPEATABLE_READ";
  }

  @Override
  public void configure(HikariConfig config) {
    config.addDataSourceProperty("connectTimeout", "3000");
    config.addDataSourceProperty("socketTimeout", "10000");
    // Client-side prepared statements: one round trip each, and no server-side prepare whose
    // failure the driver could hide by re-sending the statement as text behind Leaf's back
    // (on Galera that re-send once read another node's max_id inside an aborted transaction).
    config.addDataSourceProperty("useServerPrepStmts", "false");
    config.addDataSourceProperty("emulateUnsupportedPstmts", "false");
    // A multi-host URL (jdbc:mysql://h1,h2,h3/db) fails over to the next node on a connection
    // failure; the node it moves to must take writes (the driver's default makes it read-only).
    config.addDataSourceProperty("failOverReadOnly", "false");
  }

  /*
   * No START TRANSACTION statement in place of the driver's setAutoCommit(false) (one round trip
   * less): with a multi-host URL, Connector/J fails over only at what it sees as a transaction
   * boundary, and on a connection it believes in autocommit every statement is one. A node killed
   * after the take's UPDATE moved the next statements, the COMMIT included, to another node: the
   * COMMIT "succeeded" there, the UPDATE was lost with the node, and another server took the same
   * range (GaleraUniquenessTest: 50 IDs issued twice).
   */

  /**
   * {@inheritDoc} MySQL's OK packet holds the value {@code LAST_INSERT_ID(expr)} set (JDBC's
   * generated keys).
   */
  @Override
  public Taken take(Connection connection, DataSource pool, DSLContext db, TakeRequest take)
      throws SQLException {
    return lastInsertIdTake(db, take, update -> execute(connection, update, take));
  }

  private static OptionalLong execute(Connection connection, Query update, TakeRequest take)
      throws SQLException {
    try (PreparedStatement ps =
        connection.prepareStatement(update.getSQL(), Statement.RETURN_GENERATED_KEYS)) {
      List<Object> binds = update.getBindValues();
      for (int i = 0; i < binds.size(); i++) {
        ps.setObject(i + 1, binds.get(i));
      }
      if (ps.executeUpdate() == 0) {
        return OptionalLong.empty();
      }
      try (ResultSet keys = ps.getGeneratedKeys()) {
        if (!keys.next() || keys.getLong(1) <= 0) {
          // The write is in doubt, not the server broken: UNAVAILABLE.
          throw take.rules()
              .unavailable(
                  "the segment UPDATE committed but its reply"
                      + " carried no LAST_INSERT_ID value; the range is dropped (a gap)",
                  null);
        }
        return OptionalLong.of(keys.getLong(1));
      }
    }
  }
}
