package io.leaf.server.store;

import java.sql.Connection;
import java.sql.SQLException;
import org.jooq.DSLContext;

/**
 * What runs in a take's own transaction after {@code max_id} moved and before COMMIT: a check that
 * may refuse the range (it throws, the take rolls back) or a record of it. Implementations are
 * thread-safe.
 */
public interface TakeGuard {

  /** Nothing runs: the take is one autocommit statement. */
  TakeGuard NONE =
      new TakeGuard() {
        @Override
        public boolean active() {
          return false;
        }

        @Override
        public void inTake(Connection c, DSLContext db, Take take) {}
      };

  /** Whether takes need a transaction for this guard; false: {@link #inTake} is never called. */
  boolean active();

  /**
   * Runs on {@code c} in the take's transaction, not yet committed; throws to roll it back.
   *
   * @param db statements on {@code c}
   */
  void inTake(Connection c, DSLContext db, Take take) throws SQLException;

  /**
   * Called when the store opens, with the store's statements: creates or checks what the guard
   * needs (its table), or throws {@link UnusableTableException}. Nothing by default.
   */
  default void open(DSLContext dsl) {}

  /** {@code first}, then {@code then}, in the same transaction. */
  static TakeGuard both(TakeGuard first, TakeGuard then) {
    if (!first.active()) {
      return then;
    }
    if (!then.active()) {
      return first;
    }
    return new TakeGuard() {
      @Override
      public boolean active() {
        return true;
      }

      @Override
      public void open(DSLContext dsl) {
        first.open(dsl);
        then.open(dsl);
      }

      @Override
      public void inTake(Connection c, DSLContext db, Take take) throws SQLException {
        first.inTake(c, db, take);
        then.inTake(c, db, take);
      }
    };
  }

  /**
   * One take: {@code range} of {@code bizTag} (the database's values), ReserveIds' own write when
   * {@code reservation}, at {@code nowMillis} of the server's clock.
   */
  record Take(String bizTag, SegmentRange range, boolean reservation, long nowMillis) {}
}
