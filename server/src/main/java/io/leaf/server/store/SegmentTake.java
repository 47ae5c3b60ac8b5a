package io.leaf.server.store;

import com.zaxxer.hikari.HikariDataSource;
import io.leaf.server.db.Dialect;
import io.leaf.server.db.Dialect.TakeRequest;
import io.leaf.server.db.Dialect.Taken;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * A take of one segment on one connection: the product's statement ({@link Dialect#take}) alone in
 * autocommit, or in a transaction with a {@link TakeGuard}; the range leaves only once committed.
 * Thread-safe; also the hand-back's write ({@link #setBack}).
 */
final class SegmentTake {

  /*
   * A reply means the write committed: there is no second statement whose failure a driver could
   * hide or re-run in a new transaction, so a write that was rolled back (a deadlock, a Galera
   * certification conflict, a connection killed or failed over mid-way) never yields a range. In a
   * transaction, COMMIT proves the write instead, and the product checks how it returned
   * (Dialect#committed).
   */

  private final DataSource pool;
  private final TakeGuard guard;

  /**
   * @param pool where the connections come from (a connection a take finds unusable is evicted)
   */
  SegmentTake(DataSource pool, TakeGuard guard) {
    this.pool = pool;
    this.guard = guard;
  }

  /** Whether takes run in a transaction (the guard is active). */
  boolean guarded() {
    return guard.active();
  }

  /**
   * What a take asks: {@code step} IDs of {@code bizTag} (or {@link SegmentStore#TABLE_STEP}),
   * ReserveIds' own write when {@code reservation}, at {@code nowMillis}.
   */
  record Ask(String bizTag, int step, boolean reservation, long nowMillis) {}

  /**
   * Takes what {@code ask} asks on a connection of {@code dsl} with {@code dialect}, on {@code
   * table}: autocommit, or in one transaction with the guard when it is active.
   *
   * @throws TagNotFoundException no such row
   * @throws InvalidTagStateException the row holds a NULL or a step that is not positive
   * @throws IdOverflowException the range would pass 2⁶³−1; nothing was taken
   * @throws StoreUnavailableException the write's safety is in doubt; the range is dropped (a gap)
   */
  SegmentRange take(DSLContext dsl, Dialect dialect, LeafAllocTable table, Ask ask) {
    return dsl.connectionResult(
        c -> take(c, DSL.using(c, dsl.dialect(), dsl.settings()), dialect, table, ask));
  }

  private SegmentRange take(
      Connection c, DSLContext db, Dialect dialect, LeafAllocTable table, Ask ask)
      throws SQLException {
    TakeRequest request =
        new TakeRequest(
            ask.bizTag(),
            ask.step(),
            table.updateTimeAt(ask.nowMillis()),
            new Rules(ask.bizTag(), ask.step()));
    if (!guard.active()) {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      return range(dialect.take(c, pool, db, request));
    }
    dialect.begin(c);
    Taken taken = null;
    try {
      taken = dialect.take(c, pool, db, request);
      SegmentRange range = range(taken);
      guard.inTake(
          c, db, new TakeGuard.Take(ask.bizTag(), range, ask.reservation(), ask.nowMillis()));
      c.clearWarnings();
      dialect.commit(c);
      dialect.committed(c, request, taken);
      return range;
    } catch (Throwable e) {
      try {
        if (taken == null) {
          dialect.rollback(c);
        } else {
          dialect.abandon(c, db, request, taken);
        }
      } catch (SQLException | RuntimeException suppressed) {
        e.addSuppressed(suppressed);
        // The session may still be in the transaction: no later borrower may run in it.
        if (pool instanceof HikariDataSource hikari) {
          hikari.evictConnection(c);
        }
      }
      throw e;
    } finally {
      try {
        dialect.end(c);
      } catch (SQLException ignored) {
        // A broken connection: the pool drops it.
      }
    }
  }

  /**
   * The hand-back's write on {@code table} ({@link JooqSegmentStore#setBack}): {@code max_id} from
   * {@code end} back to {@code first}, then {@code after}; a failure of {@code after} is thrown
   * once {@code max_id} is {@code end} again.
   */
  static boolean setBack(
      DSLContext dsl,
      LeafAllocTable table,
      String bizTag,
      long first,
      long end,
      long now,
      JooqSegmentStore.AfterSetBack after) {
    RuntimeException[] failed = {null};
    boolean back =
        dsl.transactionResult(
            cfg -> {
              DSLContext tx = cfg.dsl();
              if (!table.setBack(tx, bizTag, first, end, now)) {
                return false;
              }
              try {
                // In a savepoint: its failure undoes only what it wrote.
                tx.transaction(inner -> after.run(inner.dsl(), now));
              } catch (RuntimeException e) {
                // max_id to end again under the row lock held, then COMMIT: on H2 a ROLLBACK
                // of a written row can lose a take that waited on it (H2Dialect#abandon).
                table.setBack(tx, bizTag, end, first, now);
                failed[0] = e;
                return false;
              }
              return true;
            });
    if (failed[0] != null) {
      throw failed[0];
    }
    return back;
  }

  private static SegmentRange range(Taken t) {
    return new SegmentRange(t.end() - t.added(), t.end(), t.added(), t.tableStep());
  }

  /** The store's rules and failures for one take of {@code bizTag}. */
  private record Rules(String bizTag, int step) implements Dialect.TakeRules {
    @Override
    public int added(Long maxId, Integer tableStep) {
      return stepToAdd(bizTag, maxId, tableStep, step);
    }

    @Override
    public RuntimeException missing() {
      return new TagNotFoundException(bizTag);
    }

    @Override
    public RuntimeException overflow(long maxId, int added) {
      return new IdOverflowException(bizTag, maxId, added);
    }

    @Override
    public RuntimeException unavailable(String message, Throwable cause) {
      return new StoreUnavailableException(message, cause);
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
