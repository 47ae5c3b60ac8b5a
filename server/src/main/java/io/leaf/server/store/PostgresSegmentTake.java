package io.leaf.server.store;

import static io.leaf.server.store.generated.Tables.LEAF_ALLOC;

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
 * Takes one segment on PostgreSQL with a single autocommit statement, {@code UPDATE leaf_alloc SET
 * max_id = max_id + s … WHERE biz_tag = ? RETURNING max_id, step}.
 *
 * <p>The reply that carries the new {@code max_id} is the reply of the statement that committed it,
 * so no second statement can fail, be re-run or reach another host between the write and the range.
 *
 * <p>pgjdbc returns from an autocommit statement only after the server's ReadyForQuery, that is
 * after the commit. One case still returns a row for a commit that is not safe: when the wait for
 * the synchronous standby is cancelled ({@code pg_cancel_backend}, a client's cancel request),
 * PostgreSQL keeps the local commit and reports success with only a WARNING ("canceling wait for
 * synchronous replication … The transaction has already committed locally, but might not have been
 * replicated to the standby"). A failover can then lose that commit and hand the same range to
 * another server. So a take whose statement or connection carries any warning is never used: the
 * range becomes a gap and the caller sees the database as unavailable for this load.
 *
 * <p>A standby (or a demoted primary) that answers is evicted from the pool: that connection never
 * takes writes, while a new one on a multi-host URL with {@code targetServerType=primary} finds the
 * primary. Stateless besides the pool; called with a connection the caller owns.
 */
final class PostgresSegmentTake implements SegmentTake {

  private static final Logger log = LoggerFactory.getLogger(PostgresSegmentTake.class);

  /** SQLState of "cannot execute UPDATE in a read-only transaction": a standby answered. */
  static final String READ_ONLY_TRANSACTION = "25006";

  private final DataSource dataSource;

  PostgresSegmentTake(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** {@inheritDoc} A commit that came back with a warning is unavailable (a gap). */
  @Override
  public SegmentRange take(
      Connection connection,
      DSLContext db,
      LeafAllocTable table,
      String bizTag,
      int step,
      long nowMillis)
      throws SQLException {
    try {
      return takeOnce(connection, db, table, bizTag, step, nowMillis);
    } catch (SQLException e) {
      if (READ_ONLY_TRANSACTION.equals(e.getSQLState())
          && dataSource instanceof HikariDataSource pool) {
        pool.evictConnection(connection);
      }
      throw e;
    }
  }

  /**
   * {@inheritDoc} The synchronous-replication warning of a transaction comes with its COMMIT: one
   * there makes the range a gap, as it does on an autocommit take.
   */
  @Override
  public void committed(Connection connection, String bizTag, SegmentRange range)
      throws SQLException {
    SQLWarning warning = connection.getWarnings();
    if (warning != null) {
      throw unsafeCommit(bizTag, range.start(), range.end(), warning);
    }
  }

  /** A range whose commit carried {@code warning}: logged, and never used (a gap). */
  private static StoreUnavailableException unsafeCommit(
      String bizTag, long start, long end, SQLWarning warning) {
    String message =
        "the segment ["
            + start
            + ", "
            + end
            + ") of biz_tag "
            + bizTag
            + " committed with a warning, so it may not have reached the synchronous standby and a"
            + " failover could hand it out again; it is not used (a gap): "
            + warning.getMessage();
    log.warn(message);
    return new StoreUnavailableException("database unavailable: " + message, warning);
  }

  private static SegmentRange takeOnce(
      Connection connection,
      DSLContext db,
      LeafAllocTable table,
      String bizTag,
      int step,
      long nowMillis)
      throws SQLException {
    boolean tableStep = step == SegmentStore.TABLE_STEP;
    Field<Long> added = tableStep ? LEAF_ALLOC.STEP.cast(Long.class) : DSL.val((long) step);
    Condition usable = tableStep ? LEAF_ALLOC.STEP.gt(0) : LEAF_ALLOC.STEP.isNotNull();
    // The guard on max_id keeps the addition inside BIGINT: nothing is taken, nothing wraps.
    Query update =
        db.update(LEAF_ALLOC)
            .set(LEAF_ALLOC.MAX_ID, LEAF_ALLOC.MAX_ID.plus(added))
            .set(LEAF_ALLOC.UPDATE_TIME, table.updateTimeAt(nowMillis))
            .where(LEAF_ALLOC.BIZ_TAG.eq(bizTag))
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
        throw whyNothingTaken(db, bizTag, step);
      }
      int taken = tableStep ? rowStep : step;
      SQLWarning warning = ps.getWarnings() != null ? ps.getWarnings() : connection.getWarnings();
      if (warning != null) {
        throw unsafeCommit(bizTag, end - taken, end, warning);
      }
      return new SegmentRange(end - taken, end, taken, rowStep);
    }
  }

  /** Why the UPDATE matched no row, read after it (it took nothing). */
  private static RuntimeException whyNothingTaken(DSLContext db, String bizTag, int step) {
    Record2<Long, Integer> row =
        db.select(LEAF_ALLOC.MAX_ID, LEAF_ALLOC.STEP)
            .from(LEAF_ALLOC)
            .where(LEAF_ALLOC.BIZ_TAG.eq(bizTag))
            .fetchOne();
    if (row == null) {
      return new TagNotFoundException(bizTag);
    }
    int added = SegmentTake.stepToAdd(bizTag, row.value1(), row.value2(), step);
    if (row.value1() > Long.MAX_VALUE - added) {
      return new IdOverflowException(bizTag, row.value1(), added);
    }
    // The row changed between the UPDATE and this read (an UpdateStep, a hand edit).
    return new StoreUnavailableException(
        "database unavailable: the row of biz_tag "
            + bizTag
            + " changed while a segment was taken; nothing was taken, try again",
        null);
  }
}
