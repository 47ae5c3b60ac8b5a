package io.leaf.server.region;

import static io.leaf.server.store.generated.Tables.LEAF_REGION;

import io.leaf.server.db.Dialect;
import io.leaf.server.store.DatabaseErrors;
import io.leaf.server.store.IdOverflowException;
import io.leaf.server.store.SegmentRange;
import io.leaf.server.store.StoreRejectedException;
import io.leaf.server.store.TakeGuard;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.ResultQuery;
import org.jooq.SQLDialect;
import org.jooq.conf.ParamType;
import org.jooq.exception.DataAccessException;

/**
 * What every take checks inside its own transaction, after moving {@code max_id} and before the
 * COMMIT; a take that fails a check rolls back, so {@code max_id} does not move and no ledger
 * record is written.
 *
 * <p>The checks: the database's {@code leaf_region} row is still the region this server's {@code
 * --region} names (still absent for a server without {@code --region}), and the range ends within
 * the region's share.
 */
public final class RegionFence implements TakeGuard {

  /*
   * The row is read after the UPDATE, while the take holds leaf_alloc's row lock, with a fresh
   * read: PostgreSQL and H2 read committed per statement; on MySQL/MariaDB the take's first
   * SELECT of leaf_alloc already opened InnoDB's REPEATABLE READ snapshot, so the read there is
   * a locking one (LOCK IN SHARE MODE, which both accept), which reads the latest committed row
   * and waits for a claim in flight. A claim committed before that read stops the take; one
   * committed after it is ordered after the take. A table that exists but cannot be read stops
   * every take, with or without --region: its row may name a region this server would repeat
   * (MySQL/MariaDB deny a table the user has no grant on even when it is missing, so there a
   * least-privilege user needs SELECT on it). Cost: one read per take. Missing table: a failed
   * statement aborts a PostgreSQL transaction, so there a catalog probe (to_regclass,
   * has_table_privilege) runs instead until the table has been seen readable once; elsewhere the
   * SELECT's "no such table" answers it.
   */

  /** No check at all: stores of tests and benchmarks that know nothing of regions. */
  public static final RegionFence UNCHECKED = new RegionFence(false, null, null, 0, Long.MAX_VALUE);

  private static final String TABLE_MISSING = "42S02";
  private static final String POSTGRES_PROBE =
      "SELECT CASE WHEN to_regclass('leaf_region') IS"
          + " NULL THEN 0 WHEN has_table_privilege(to_regclass('leaf_region'), 'SELECT') THEN 2"
          + " ELSE 1 END";

  private final boolean checks;

  /** The row this server needs; null: none (a server without {@code --region}). */
  private final StoredRegion expected;

  private final String regionName;
  private final long base;
  private final long maxLocalMaxId;

  /** PostgreSQL: the table was read once, so a plain SELECT needs no probe first. */
  private volatile boolean tableSeen;

  private RegionFence(
      boolean checks, StoredRegion expected, String regionName, long base, long maxLocalMaxId) {
    this.checks = checks;
    this.expected = expected;
    this.regionName = regionName;
    this.base = base;
    this.maxLocalMaxId = maxLocalMaxId;
  }

  /** A server without {@code --region}: every take needs the database to record no region. */
  public static RegionFence withoutRegion() {
    return new RegionFence(true, null, null, 0, Long.MAX_VALUE);
  }

  /**
   * A server of {@code --region r/n}: every take needs {@code leaf_region} to record {@code
   * expected}, and its local range to end at most at {@code maxLocalMaxId}.
   *
   * @param base the share's first ID, added to local values in messages
   */
  public static RegionFence forRegion(StoredRegion expected, long base, long maxLocalMaxId) {
    return new RegionFence(
        true, expected, expected.region() + "/" + expected.regions(), base, maxLocalMaxId);
  }

  /** {@inheritDoc} Every fence but {@link #UNCHECKED}. */
  @Override
  public boolean active() {
    return checks;
  }

  @Override
  public void inTake(Connection c, DSLContext db, Take take) throws SQLException {
    check(c, db, take.bizTag(), take.range());
  }

  /**
   * Checks {@code local}, just taken of {@code bizTag} on {@code c} (its transaction not yet
   * committed).
   *
   * @throws IdOverflowException the range passes the share's end
   * @throws RegionChangedException {@code leaf_region} does not match this server
   */
  void check(Connection c, DSLContext db, String bizTag, SegmentRange local) throws SQLException {
    if (!checks) {
      return;
    }
    if (local.end() > maxLocalMaxId) {
      throw new IdOverflowException(
          "biz_tag "
              + bizTag
              + " is exhausted in region "
              + regionName
              + ": max_id "
              + (base + local.start())
              + " + step "
              + local.step()
              + " would pass the region's last ID "
              + (base + maxLocalMaxId - 1)
              + "; nothing was taken");
    }
    compare(read(c, db), bizTag);
  }

  /** The stored row: empty when absent; {@code null} when the table cannot be read. */
  private Optional<StoredRegion> read(Connection c, DSLContext db) throws SQLException {
    boolean postgres = db.dialect().family() == SQLDialect.POSTGRES;
    if (postgres && !tableSeen) {
      int state = ((Number) db.fetchValue(POSTGRES_PROBE)).intValue();
      if (state == 0) {
        return Optional.empty();
      }
      if (state == 1) {
        return null;
      }
    }
    try {
      ResultQuery<? extends Record> select =
          db.select(LEAF_REGION.RULE_NAME, LEAF_REGION.REGION, LEAF_REGION.REGIONS)
              .from(LEAF_REGION)
              .where(LEAF_REGION.ID.eq(1));
      String sql = select.getSQL(ParamType.INLINED);
      String latest = Dialect.of(db.dialect()).latestRead(sql);
      if (!latest.equals(sql)) {
        select = db.resultQuery(latest);
      }
      Optional<StoredRegion> row =
          select.fetchOptional(
              r ->
                  new StoredRegion(
                      r.get(0, String.class), r.get(1, Integer.class), r.get(2, Integer.class)));
      tableSeen = true;
      return row;
    } catch (DataAccessException e) {
      tableSeen = false;
      if (postgres) {
        throw e;
      }
      if (TABLE_MISSING.equals(e.sqlState())) {
        return Optional.empty();
      }
      RuntimeException failure = DatabaseErrors.toStoreException("read leaf_region", e, 1);
      if (failure instanceof StoreRejectedException) {
        return null;
      }
      throw failure;
    }
  }

  @SuppressWarnings("OptionalAssignedToNull")
  private void compare(Optional<StoredRegion> row, String bizTag) {
    String nothing = ": nothing of biz_tag " + bizTag + " was taken";
    if (row == null) {
      throw new RegionChangedException(
          (expected == null ? "this server runs without --region" : "--region " + regionName)
              + " and table leaf_region cannot be read"
              + nothing
              + "; every server's database user needs SELECT on leaf_region"
              + " (docs/regions.md)");
    }
    if (expected == null) {
      if (row.isEmpty()) {
        return;
      }
      StoredRegion r = row.get();
      throw new RegionChangedException(
          "table leaf_region now records region "
              + r.region()
              + "/"
              + r.regions()
              + " and this server runs without --region"
              + nothing
              + "; restart it"
              + " with --region "
              + r.region()
              + "/"
              + r.regions());
    }
    String flag = "--region " + regionName;
    if (row.isEmpty()) {
      throw new RegionChangedException(
          flag
              + ": table leaf_region no longer records a region"
              + " (its row is gone)"
              + nothing
              + "; this server takes nothing until the row records "
              + regionName
              + " again (docs/regions.md)");
    }
    StoredRegion r = row.get();
    if (!r.equals(expected)) {
      throw new RegionChangedException(
          flag
              + " contradicts table leaf_region, which now records"
              + " region "
              + r.region()
              + "/"
              + r.regions()
              + " (rule "
              + r.rule()
              + ")"
              + nothing
              + "; restart this server with the row's region, or restore the row");
    }
  }
}
