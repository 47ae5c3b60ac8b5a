package io.leaf.server.store;

import org.jooq.Field;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * The database's own clock as epoch milliseconds inside a statement: the one dialect-specific
 * expression the worker leases need, so that lease expiry is judged by the database alone.
 */
public final class DatabaseClock {

  private DatabaseClock() {}

  /** {@code CURRENT_TIMESTAMP} in epoch millis, in {@code dialect}'s words. */
  public static Field<Long> nowMillis(SQLDialect dialect) {
    return switch (dialect.family()) {
      // UNIX_TIMESTAMP of a TIMESTAMP(3) keeps the milliseconds as decimals.
      case MYSQL, MARIADB ->
          DSL.field("CAST(UNIX_TIMESTAMP(CURRENT_TIMESTAMP(3)) * 1000 AS SIGNED)", Long.class);
      // The SQL standard's form (H2, PostgreSQL): CURRENT_TIMESTAMP is WITH TIME ZONE there.
      default ->
          DSL.field("CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP(3)) * 1000 AS BIGINT)", Long.class);
    };
  }
}
