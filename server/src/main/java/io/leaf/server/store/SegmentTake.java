package io.leaf.server.store;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.jooq.DSLContext;

/**
 * The one statement that takes a segment of a tag: it moves {@code max_id} and its reply carries
 * the range moved past, in the form the database product offers; {@link #of} chooses it once, when
 * the store opens.
 *
 * <p>A reply means the write committed: there is no second statement whose failure a driver could
 * hide or re-run in a new transaction, so a write that was rolled back (a deadlock, a Galera
 * certification conflict, a connection killed or failed over mid-way) never yields a range.
 * Implementations are thread-safe; each call runs on a connection the caller owns: autocommit, or
 * (with the ledger) inside the caller's transaction, whose COMMIT then proves the write instead.
 */
interface SegmentTake {

  /** The take for {@code product}: {@code RETURNING} on PostgreSQL, {@code LAST_INSERT_ID} else. */
  static SegmentTake of(DatabaseProduct product, DataSource dataSource) {
    return switch (product.dialect().family()) {
      case POSTGRES -> new PostgresSegmentTake(dataSource);
      case H2 -> new H2SegmentTake();
      default -> new MySqlSegmentTake();
    };
  }

  /**
   * Takes {@code step} IDs (or the row's step for {@link SegmentStore#TABLE_STEP}) of {@code
   * bizTag}; {@code db} runs on {@code connection}.
   *
   * @throws TagNotFoundException no such row
   * @throws InvalidTagStateException the row holds a NULL or a step that is not positive
   * @throws IdOverflowException the range would pass 2⁶³−1; nothing was taken
   * @throws StoreUnavailableException the write's safety is in doubt; the range is dropped (a gap)
   */
  SegmentRange take(
      Connection connection,
      DSLContext db,
      LeafAllocTable table,
      String bizTag,
      int step,
      long nowMillis)
      throws SQLException;

  /**
   * Called after the COMMIT of a take run inside a transaction (the ledger's): throws when the
   * commit returned in a way that does not prove the range safe, so it is dropped (a gap). Nothing
   * by default.
   *
   * @throws StoreUnavailableException the commit's safety is in doubt
   */
  default void committed(Connection connection, String bizTag, SegmentRange range)
      throws SQLException {}

  /** What runs after the take, before COMMIT, in its transaction. */
  @FunctionalInterface
  interface InTake {
    void run(SegmentRange range) throws SQLException;
  }

  /**
   * BEGIN; {@link #take}; {@code record} of its range (the fence's checks, the ledger's record);
   * COMMIT, on {@code c}. The range leaves only after COMMIT returned (and the product accepted how
   * it returned: {@link #committed}); anything else rolls back, or leaves the commit in doubt, and
   * the range is a gap.
   */
  default SegmentRange takeRecorded(
      Connection c,
      DSLContext db,
      LeafAllocTable table,
      String bizTag,
      int step,
      long nowMillis,
      InTake record)
      throws SQLException {
    c.setAutoCommit(false);
    try {
      SegmentRange range = take(c, db, table, bizTag, step, nowMillis);
      record.run(range);
      c.clearWarnings();
      c.commit();
      committed(c, bizTag, range);
      return range;
    } catch (Throwable e) {
      try {
        c.rollback();
      } catch (SQLException | RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    } finally {
      try {
        c.setAutoCommit(true);
      } catch (SQLException ignored) {
        // A broken connection: the pool drops it.
      }
    }
  }

  /**
   * The amount a take of {@code step} (or {@link SegmentStore#TABLE_STEP}) adds to a row holding
   * {@code maxId} and {@code tableStep}.
   *
   * @throws InvalidTagStateException the row holds a NULL or a step that is not positive
   */
  static int stepToAdd(String bizTag, Long maxId, Integer tableStep, int step) {
    if (maxId == null || tableStep == null) {
      throw new InvalidTagStateException(
          "biz_tag "
              + bizTag
              + " has a NULL "
              + (maxId == null ? "max_id" : "step")
              + " in leaf_alloc; set it in the table"
              + (maxId == null ? "" : " or with UpdateStep"));
    }
    int added = step == SegmentStore.TABLE_STEP ? tableStep : step;
    if (added <= 0) {
      throw new InvalidTagStateException(
          "biz_tag "
              + bizTag
              + " has step "
              + added
              + " in leaf_alloc; set a positive step with UpdateStep");
    }
    return added;
  }
}
