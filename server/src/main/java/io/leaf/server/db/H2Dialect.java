package io.leaf.server.db;

import static io.leaf.server.store.generated.Tables.LEAF_ALLOC;

import java.sql.Connection;
import java.util.OptionalLong;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.impl.DSL;

/**
 * H2 in its MySQL mode ({@link H2Url} adds it): it runs in this process, so the take reads the
 * session's {@code LAST_INSERT_ID()} after the UPDATE on the same connection, and no other server
 * can answer in between.
 */
public final class H2Dialect extends Dialect {

  /** The schema's description column, sized in characters as utf8mb4 counts them. */
  static final String DESCRIPTION_COLUMN = "VARCHAR(256) CHARACTER SET utf8mb4";

  /**
   * H2 counts a column's length in UTF-16 units, so 256 characters outside the Basic Multilingual
   * Plane take 512; the API's own check keeps descriptions to 256 code points on both databases.
   */
  static final String H2_DESCRIPTION_COLUMN = "VARCHAR(512)";

  H2Dialect() {}

  @Override
  public String ddl(String statement) {
    return statement.replace(DESCRIPTION_COLUMN, H2_DESCRIPTION_COLUMN);
  }

  /** {@inheritDoc} The SQL standard's form: {@code CURRENT_TIMESTAMP} has a time zone here. */
  @Override
  public Field<Long> nowMillis() {
    return DSL.field("CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP(3)) * 1000 AS BIGINT)", Long.class);
  }

  /**
   * {@inheritDoc} H2's {@code UNIX_TIMESTAMP} keeps whole seconds and its INTEGER result overflows
   * when multiplied; a TIMESTAMP cast to WITH TIME ZONE takes the session's zone.
   */
  @Override
  public Field<Long> epochMillis(Field<?> timestamp) {
    return PostgresDialect.standardEpochMillis(timestamp);
  }

  /**
   * {@inheritDoc} Here the UPDATE is undone by a second one, under the row lock the take holds, and
   * committed: H2 (2.2, 2.3) may let a ROLLBACK of a transaction that wrote or locked a row restore
   * that row over an UPDATE another transaction committed while it waited (a lost update, so a
   * range handed out twice). A failure there falls back to the rollback.
   */
  @Override
  public void abandon(Connection c, DSLContext db, TakeRequest take, Taken taken)
      throws java.sql.SQLException {
    int undone =
        db.update(LEAF_ALLOC)
            .set(LEAF_ALLOC.MAX_ID, taken.end() - taken.added())
            .where(LEAF_ALLOC.BIZ_TAG.eq(take.bizTag()))
            .and(LEAF_ALLOC.MAX_ID.eq(taken.end()))
            .execute();
    if (undone == 1) {
      commit(c);
    } else {
      rollback(c);
    }
  }

  @Override
  public Taken take(Connection connection, DataSource pool, DSLContext db, TakeRequest take)
      throws java.sql.SQLException {
    // In a take's transaction (a guard: the ledger, a region) the UPDATE's row lock is held until
    // the commit, so the row read back is this take's own max_id. LAST_INSERT_ID(expr) is not
    // trusted there: under concurrent takes whose transactions rolled back, H2 once handed two
    // takes the same value (the ledger's key caught it). In autocommit the row could move on
    // before a read, and the session's LAST_INSERT_ID is the answer.
    boolean inTransaction = !connection.getAutoCommit();
    return lastInsertIdTake(
        db,
        take,
        update ->
            update.execute() == 0
                ? OptionalLong.empty()
                : OptionalLong.of(
                    inTransaction
                        ? db.select(LEAF_ALLOC.MAX_ID)
                            .from(LEAF_ALLOC)
                            .where(LEAF_ALLOC.BIZ_TAG.eq(take.bizTag()))
                            .fetchSingle()
                            .value1()
                        : db.select(DSL.function("LAST_INSERT_ID", Long.class))
                            .fetchSingle()
                            .value1()));
  }
}
