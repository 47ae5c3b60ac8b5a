package io.leaf.server.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.OptionalLong;
import org.jooq.DSLContext;
import org.jooq.Query;

/**
 * The take on MySQL and MariaDB (Galera too): the new {@code max_id} comes back in the UPDATE's own
 * reply (MySQL's OK packet holds the value {@code LAST_INSERT_ID(expr)} set, JDBC's generated
 * keys), never from a later query that a multi-host driver could send to another server.
 */
final class MySqlSegmentTake extends LastInsertIdTake {

  @Override
  OptionalLong execute(Connection connection, DSLContext db, Query update) throws SQLException {
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
          // The write is in doubt, not the server broken: UNAVAILABLE, as SegmentTake says.
          throw new StoreUnavailableException(
              "the segment UPDATE committed but its reply"
                  + " carried no LAST_INSERT_ID value; the range is dropped (a gap)",
              null);
        }
        return OptionalLong.of(keys.getLong(1));
      }
    }
  }
}
