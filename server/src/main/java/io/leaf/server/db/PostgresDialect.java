package io.leaf.server.db;

import static io.leaf.server.store.generated.Tables.LEAF_ALLOC;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.util.List;
import javax.sql.DataSource;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Query;
import org.jooq.Record2;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL through pgjdbc: its own schema file, a take as one {@code UPDATE … RETURNING}, and a
 * commit that carries a warning never trusted.
 */
public final class PostgresDialect extends Dialect {

  /*
   * The take, UPDATE leaf_alloc SET max_id = max_id + s … WHERE biz_tag = ? RETURNING max_id,
   * step: the reply that carries the new max_id is the reply of the statement that committed it,
   * so no second statement can fail, be re-run or reach another host between the write and the
   * range.
   *
   * pgjdbc returns from an autocommit statement only after the server's ReadyForQuery, that is
   * after the commit. One case still returns a row for a commit that is not safe: when the wait
   * for the synchronous standby is cancelled (pg_cancel_backend, a client's cancel request),
   * PostgreSQL keeps the local commit and reports success with only a WARNING ("canceling wait
   * for synchronous replication … The transaction has already committed locally, but might not
   * have been replicated to the standby"). A failover can then lose that commit and hand the same
   * range to another server. So a take whose statement or connection carries any warning is never
   * used: the range becomes a gap and the caller sees the database as unavailable for this load.
   *
   * A standby (or a demoted primary) that answers is evicted from the pool: that connection never
   * takes writes, while a new one on a multi-host URL with targetServerType=primary finds the
   * primary.
   *
   * pgjdbc's properties, each a default (a property the URL sets itself wins):
   * connectTimeout=3, socketTimeout=10 (seconds): an unreachable host or a reply that never comes
   * is an outage within seconds, as with MySQL. hostRecheckSeconds=2: on a multi-host URL pgjdbc
   * remembers for this long that a host was down or a standby, and tries the others first; its
   * default of 10 seconds made the new primary after a failover wait behind stale entries (the
   * remembered state is only an ordering hint). ApplicationName=leaf-server: pg_stat_activity's
   * name.
   */

  private static final Logger log = LoggerFactory.getLogger(PostgresDialect.class);

  /** SQLState of "cannot execute UPDATE in a read-only transaction": a standby answered. */
  static final String READ_ONLY_TRANSACTION = "25006";

  static final int CONNECT_TIMEOUT_SECONDS = 3;
  static final int SOCKET_TIMEOUT_SECONDS = 10;
  static final int HOST_RECHECK_SECONDS = 2;

  PostgresDialect() {}

  @Override
  public String schemaResource() {
    return "/sql/schema-postgresql.sql";
  }

  @Override
  public Field<Long> nowMillis() {
    return DSL.field("CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP(3)) * 1000 AS BIGINT)", Long.class);
  }

  @Override
  public Field<Long> epochMillis(Field<?> timestamp) {
    return standardEpochMillis(timestamp);
  }

  /** A TIMESTAMP cast to WITH TIME ZONE takes the session's zone, as MySQL's UNIX_TIMESTAMP. */
  static Field<Long> standardEpochMillis(Field<?> timestamp) {
    return DSL.field(
        "CAST(EXTRACT(EPOCH FROM CAST({0} AS TIMESTAMP WITH TIME ZONE)) * 1000 AS BIGINT)",
        Long.class, timestamp);
  }

  @Override
  public void configure(HikariConfig config) {
    config.addDataSourceProperty("connectTimeout", String.valueOf(CONNECT_TIMEOUT_SECONDS));
    config.addDataSourceProperty("socketTimeout", String.valueOf(SOCKET_TIMEOUT_SECONDS));
    config.addDataSourceProperty("hostRecheckSeconds", String.valueOf(HOST_RECHECK_SECONDS));
    config.addDataSourceProperty("ApplicationName", "leaf-server");
  }

  /** {@inheritDoc} A commit that came back with a warning is unavailable (a gap). */
  @Override
  public Taken take(Connection connection, DataSource pool, DSLContext db, TakeRequest take)
      throws SQLException {
    try {
      return takeOnce(connection, db, take);
    } catch (SQLException e) {
      if (READ_ONLY_TRANSACTION.equals(e.getSQLState()) && pool instanceof HikariDataSource p) {
        p.evictConnection(connection);
      }
      throw e;
    }
  }

  /**
   * {@inheritDoc} The synchronous-replication warning of a transaction comes with its COMMIT: one
   * there makes the range a gap, as it does on an autocommit take.
   */
  @Override
  public void committed(Connection connection, TakeRequest take, Taken range) throws SQLException {
    SQLWarning warning = connection.getWarnings();
    if (warning != null) {
      throw unsafeCommit(take, range.end() - range.added(), range.end(), warning);
    }
  }

  /** A range whose commit carried {@code warning}: logged, and never used (a gap). */
  private static RuntimeException unsafeCommit(
      TakeRequest take, long start, long end, SQLWarning warning) {
    String message =
        "the segment ["
            + start
            + ", "
            + end
            + ") of biz_tag "
            + take.bizTag()
            + " committed with a warning, so it may not have reached the synchronous standby and a"
            + " failover could hand it out again; it is not used (a gap): "
            + warning.getMessage();
    log.warn(message);
    return take.rules().unavailable("database unavailable: " + message, warning);
  }

  private static Taken takeOnce(Connection connection, DSLContext db, TakeRequest take)
      throws SQLException {
    boolean tableStep = take.step() == 0;
    Field<Long> added = tableStep ? LEAF_ALLOC.STEP.cast(Long.class) : DSL.val((long) take.step());
    Condition usable = tableStep ? LEAF_ALLOC.STEP.gt(0) : LEAF_ALLOC.STEP.isNotNull();
    // The guard on max_id keeps the addition inside BIGINT: nothing is taken, nothing wraps.
    Query update =
        db.update(LEAF_ALLOC)
            .set(LEAF_ALLOC.MAX_ID, LEAF_ALLOC.MAX_ID.plus(added))
            .set(LEAF_ALLOC.UPDATE_TIME, take.updateTime())
            .where(LEAF_ALLOC.BIZ_TAG.eq(take.bizTag()))
            .and(usable)
            .and(LEAF_ALLOC.MAX_ID.le(DSL.inline(Long.MAX_VALUE).minus(added)))
            .returningResult(LEAF_ALLOC.MAX_ID, LEAF_ALLOC.STEP);
    connection.clearWarnings();
    try (PreparedStatement ps = connection.prepareStatement(update.getSQL())) {
      List<Object> binds = update.getBindValues();
      for (int i = 0; i < binds.size(); i++) {
        ps.setObject(i + 1, binds.get(i));
      }
      Long end = null;
      int rowStep = 0;
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          end = rs.getLong(1);
          rowStep = rs.getInt(2);
        }
      }
      if (end == null) {
        throw whyNothingTaken(db, take);
      }
      int taken = tableStep ? rowStep : take.step();
      SQLWarning warning = ps.getWarnings() != null ? ps.getWarnings() : connection.getWarnings();
      if (warning != null) {
        throw unsafeCommit(take, end - taken, end, warning);
      }
      return new Taken(end, taken, rowStep);
    }
  }

  /** Why the UPDATE matched no row, read after it (it took nothing). */
  private static RuntimeException whyNothingTaken(DSLContext db, TakeRequest take) {
    Record2<Long, Integer> row =
        db.select(LEAF_ALLOC.MAX_ID, LEAF_ALLOC.STEP)
            .from(LEAF_ALLOC)
            .where(LEAF_ALLOC.BIZ_TAG.eq(take.bizTag()))
            .fetchOne();
    if (row == null) {
      return take.rules().missing();
    }
    int added = take.rules().added(row.value1(), row.value2());
    if (row.value1() > Long.MAX_VALUE - added) {
      return take.rules().overflow(row.value1(), added);
    }
    // The row changed between the UPDATE and this read (an UpdateStep, a hand edit).
    return take.rules()
        .unavailable(
            "database unavailable: the row of biz_tag "
                + take.bizTag()
                + " changed while a segment was taken; nothing was taken, try again",
            null);
  }
}
