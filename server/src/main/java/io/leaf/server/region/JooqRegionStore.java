package io.leaf.server.region;

import static io.leaf.server.store.generated.Tables.LEAF_REGION;

import io.leaf.server.store.DatabaseErrors;
import io.leaf.server.store.OwnTable;
import io.leaf.server.store.StoreRejectedException;
import io.leaf.server.store.UnusableTableException;
import java.time.InstantSource;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jooq.Cursor;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;

/**
 * {@link RegionStore} on the {@code leaf_region} table ({@code sql/schema.sql}): of two servers
 * racing to set a fresh database up, one row wins and both read it.
 *
 * <p>Whether the table exists is read from the JDBC metadata (on MySQL/MariaDB, which list only
 * tables the user holds a grant on, from the SELECT's answer), and a table that cannot be read is a
 * {@link RegionUnreadableException}; {@link #claim} creates it when missing and inserts row 1 under
 * its primary key.
 *
 * <p>Thread-safe; each method uses one pooled connection.
 */
public final class JooqRegionStore implements RegionStore {

  private static final String TABLE = "leaf_region";
  private static final String TABLE_MISSING = "42S02";

  /** The one row's key. */
  private static final int ROW = 1;

  private final DSLContext dsl;
  private final InstantSource clock;

  public JooqRegionStore(DataSource dataSource, SQLDialect dialect, InstantSource clock) {
    this.dsl = OwnTable.dsl(dataSource, dialect);
    this.clock = clock;
  }

  @Override
  public Optional<StoredRegion> read() {
    return guard(
        "read " + TABLE,
        () ->
            dsl.connectionResult(
                c -> {
                  boolean listed = OwnTable.exists(c.getMetaData(), TABLE);
                  // MySQL/MariaDB list only the tables the user holds a privilege on: ask the table
                  // itself.
                  if (!listed && dsl.dialect().family() != SQLDialect.MYSQL) {
                    return Optional.<StoredRegion>empty();
                  }
                  try {
                    return DSL.using(c, dsl.dialect(), dsl.settings())
                        .selectFrom(LEAF_REGION)
                        .where(LEAF_REGION.ID.eq(ROW))
                        .fetchOptional(
                            r -> new StoredRegion(r.getRuleName(), r.getRegion(), r.getRegions()));
                  } catch (DataAccessException e) {
                    if (!listed && TABLE_MISSING.equals(e.sqlState())) {
                      return Optional.<StoredRegion>empty();
                    }
                    // Connected, and the table is there: a refusal now is about this table, not the
                    // login.
                    RuntimeException failure =
                        DatabaseErrors.toStoreException("read " + TABLE, e, 1);
                    if (failure instanceof StoreRejectedException) {
                      throw new RegionUnreadableException(failure.getMessage(), e);
                    }
                    throw failure;
                  }
                }));
  }

  @Override
  public StoredRegion claim(StoredRegion wanted, Consumer<Optional<HighestTag>> approve) {
    new OwnTable(dsl, TABLE).create();
    RuntimeException[] refused = {null};
    try {
      guard(
          "record the region in " + TABLE,
          () ->
              dsl.transactionResult(
                  tx -> {
                    DSLContext in = tx.dsl();
                    // Takes wait until this commits, and every take committed before is counted:
                    // no server without a region slips a segment in between check and insert.
                    Optional<HighestTag> highest = lockTakes(in);
                    if (in.fetchExists(LEAF_REGION, LEAF_REGION.ID.eq(ROW))) {
                      return 0;
                    }
                    try {
                      approve.accept(highest);
                    } catch (RuntimeException e) {
                      // Nothing was written: COMMIT ends it. H2 may let a ROLLBACK of row locks
                      // restore a row over a take committed while it waited (H2Dialect#abandon).
                      refused[0] = e;
                      return 0;
                    }
                    return in.insertInto(LEAF_REGION)
                        .set(LEAF_REGION.ID, ROW)
                        .set(LEAF_REGION.RULE_NAME, wanted.rule())
                        .set(LEAF_REGION.REGION, wanted.region())
                        .set(LEAF_REGION.REGIONS, wanted.regions())
                        .set(LEAF_REGION.UPDATE_TIME, clock.millis())
                        .execute();
                  }));
    } catch (DatabaseErrors.DuplicateKey raced) {
      // Another server recorded its region first: that row is the database's.
    }
    if (refused[0] != null) {
      throw refused[0];
    }
    return read()
        .orElseThrow(
            () ->
                new UnusableTableException(
                    "table " + TABLE + " holds no row after one was inserted"));
  }

  /**
   * Locks {@code leaf_alloc} against takes and new tags until the transaction ends, and returns its
   * highest row as it stands under the lock; empty when the table has no row or does not exist.
   */
  private static Optional<HighestTag> lockTakes(DSLContext tx) {
    boolean mysql =
        tx.dialect().family() == SQLDialect.MYSQL || tx.dialect().family() == SQLDialect.MARIADB;
    // A failed statement aborts a PostgreSQL transaction: ask the catalog there. MySQL/MariaDB list
    // only the tables the user holds a grant on: ask the table itself.
    if (!mysql && !tx.connectionResult(c -> OwnTable.exists(c.getMetaData(), "leaf_alloc"))) {
      return Optional.empty(); // no table, no take: one made later meets the row at its first take
    }
    String read = "SELECT biz_tag, max_id FROM leaf_alloc";
    if (tx.dialect().family() == SQLDialect.POSTGRES) {
      // SHARE conflicts with the ROW EXCLUSIVE lock every UPDATE and INSERT holds.
      tx.execute("LOCK TABLE leaf_alloc IN SHARE MODE");
    } else {
      // A locking read of every row and gap: waits for takes in flight, blocks later ones.
      read += mysql ? " LOCK IN SHARE MODE" : " FOR UPDATE";
    }
    // A cursor: only the highest row so far stays in memory, however many tags there are.
    try (Cursor<Record> rows = tx.resultQuery(read).fetchSize(500).fetchLazy()) {
      HighestTag highest = null;
      for (Record r : rows) {
        Long maxId = r.get(1, Long.class);
        if (maxId != null && (highest == null || maxId > highest.maxId())) {
          highest = new HighestTag(r.get(0, String.class), maxId);
        }
      }
      return Optional.ofNullable(highest);
    } catch (DataAccessException e) {
      if (mysql && TABLE_MISSING.equals(e.sqlState())) {
        return Optional.empty();
      }
      throw e;
    }
  }

  private static <T> T guard(String what, Supplier<T> work) {
    try {
      return work.get();
    } catch (DataAccessException e) {
      throw DatabaseErrors.toStoreException(what, e, 1);
    }
  }
}
