package io.leaf.server.store;

import static io.leaf.server.store.generated.Tables.LEAF_ALLOC;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.OptionalLong;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Query;
import org.jooq.Record2;
import org.jooq.impl.DSL;

/**
 * A take as one autocommit {@code UPDATE … SET max_id = LAST_INSERT_ID(max_id + s)}, for the
 * products that have {@code LAST_INSERT_ID(expr)}; each reads the value it set its own way.
 *
 * <p>The step added is a bound value, never read back, so {@code [max_id - s, max_id)} is exactly
 * what the UPDATE moved past. Stateless.
 */
abstract class LastInsertIdTake implements SegmentTake {

  @Override
  public final SegmentRange take(
      Connection connection,
      DSLContext db,
      LeafAllocTable table,
      String bizTag,
      int step,
      long nowMillis)
      throws SQLException {
    // The row's step: the amount to add when the caller asks for the table step, and the floor
    // of the dynamic step either way. Read before the UPDATE and only ever added as a value, so
    // an UpdateStep racing with this take changes the next segment, never this one's bounds.
    Record2<Long, Integer> row =
        db.select(LEAF_ALLOC.MAX_ID, LEAF_ALLOC.STEP)
            .from(LEAF_ALLOC)
            .where(LEAF_ALLOC.BIZ_TAG.eq(bizTag))
            .fetchOne();
    if (row == null) {
      throw new TagNotFoundException(bizTag);
    }
    int added = SegmentTake.stepToAdd(bizTag, row.value1(), row.value2(), step);
    int tableStep = row.value2();
    // The guard on max_id keeps the addition inside BIGINT: nothing is taken, nothing wraps.
    Query update =
        db.update(LEAF_ALLOC)
            .set(LEAF_ALLOC.MAX_ID, lastInsertId(LEAF_ALLOC.MAX_ID.plus(DSL.val((long) added))))
            .set(LEAF_ALLOC.UPDATE_TIME, table.updateTimeAt(nowMillis))
            .where(LEAF_ALLOC.BIZ_TAG.eq(bizTag))
            .and(LEAF_ALLOC.MAX_ID.le(DSL.val(Long.MAX_VALUE - added)));
    OptionalLong maxId = execute(connection, db, update);
    if (maxId.isEmpty()) {
      Long current =
          db.select(LEAF_ALLOC.MAX_ID)
              .from(LEAF_ALLOC)
              .where(LEAF_ALLOC.BIZ_TAG.eq(bizTag))
              .fetchOne(LEAF_ALLOC.MAX_ID);
      if (current == null) {
        throw new TagNotFoundException(bizTag);
      }
      throw new IdOverflowException(bizTag, current, added);
    }
    long end = maxId.getAsLong();
    return new SegmentRange(end - added, end, added, tableStep);
  }

  /**
   * Executes {@code update} and returns the value its {@code LAST_INSERT_ID(expr)} set, or empty
   * when it matched no row.
   */
  abstract OptionalLong execute(Connection connection, DSLContext db, Query update)
      throws SQLException;

  static Field<Long> lastInsertId(Field<Long> value) {
    return DSL.function("LAST_INSERT_ID", Long.class, value);
  }
}
