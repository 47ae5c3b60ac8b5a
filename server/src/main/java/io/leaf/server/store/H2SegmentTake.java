package io.leaf.server.store;

import java.sql.Connection;
import java.util.OptionalLong;
import org.jooq.DSLContext;
import org.jooq.Query;
import org.jooq.impl.DSL;

/**
 * The take on H2: it runs in this process, so the session's {@code LAST_INSERT_ID()} is read after
 * the UPDATE on the same connection; no other server can answer in between.
 */
final class H2SegmentTake extends LastInsertIdTake {

  @Override
  OptionalLong execute(Connection connection, DSLContext db, Query update) {
    if (update.execute() == 0) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(
        db.select(DSL.function("LAST_INSERT_ID", Long.class)).fetchSingle().value1());
  }
}
