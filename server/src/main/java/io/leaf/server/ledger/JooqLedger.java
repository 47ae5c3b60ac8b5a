package io.leaf.server.ledger;

import static io.leaf.server.store.generated.Tables.LEAF_ALLOC;
import static io.leaf.server.store.generated.Tables.LEAF_LEDGER;

import io.leaf.server.store.DatabaseErrors;
import io.leaf.server.store.OwnTable;
import io.leaf.server.store.StoreRejectedException;
import io.leaf.server.store.UnusableTableException;
import java.util.List;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The statements of {@code leaf_ledger}, each run on the context it is given (a take's or a
 * hand-back's transaction, or the pool), and the take's transaction itself ({@link
 * io.leaf.server.store.JooqSegmentStore}).
 *
 * <p>Which record answers for an ID: of the records that start at or below it, the {@link
 * #CANDIDATES} that start nearest; among those that hold it, the one that starts highest, and at an
 * equal start a segment or reservation before a hand-back. A range handed back is only taken again
 * from its first ID up, so the record starting highest is the latest event of the ID: a later take
 * (issued there) or a hand-back (not issued since, as long as {@code max_id} has not passed the ID
 * since: a take without a record, of a server with the ledger off, may have issued it). Stateless.
 */
public final class JooqLedger {

  /** Records looked at per WhoIssued: the index reads at most this many rows. */
  public static final int CANDIDATES = 16;

  public static final String TABLE = "leaf_ledger";

  /** The start-up probe's tag: no tag is empty, so no call's record shares its key. */
  public static final String PROBE_TAG = "";

  private static final Logger log = LoggerFactory.getLogger(JooqLedger.class);

  private JooqLedger() {}

  /**
   * Creates {@code leaf_ledger} when missing and checks, in a transaction rolled back, that this
   * user may insert, read, update and delete its rows, on a row of the probe's own that no call or
   * other server touches.
   *
   * @throws UnusableTableException it cannot be created or used: one line naming the table and
   *     {@code --ledger off}
   */
  public static void open(DSLContext dsl, String server, long nowMillis) {
    try {
      dsl.connectionResult(
          c -> {
            if (OwnTable.createIfMissing(c, dsl, TABLE)) {
              log.info("created table {}", TABLE);
            }
            return null;
          });
      dsl.connectionResult(
          c -> {
            boolean auto = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
              DSLContext tx = DSL.using(c, dsl.dialect(), dsl.settings());
              // A key of its own (no tag is empty, no ID negative, a random start per server), its
              // own time and deletes by key: the probe touches no row a call, another server's
              // probe or the retention can touch, so it never conflicts with them.
              long probe =
                  -1
                      - java.util.concurrent.ThreadLocalRandom.current()
                          .nextLong(Long.MAX_VALUE - 1);
              insert(tx, PROBE_TAG, probe, 0, RangeKind.RETURNED, server, nowMillis);
              tx.update(LEAF_LEDGER)
                  .set(LEAF_LEDGER.TIME_MS, nowMillis + 1)
                  .where(LEAF_LEDGER.BIZ_TAG.eq(PROBE_TAG))
                  .and(LEAF_LEDGER.START_ID.eq(probe))
                  .execute();
              holding(tx, PROBE_TAG, probe);
              tx.deleteFrom(LEAF_LEDGER)
                  .where(LEAF_LEDGER.BIZ_TAG.eq(PROBE_TAG))
                  .and(LEAF_LEDGER.START_ID.eq(probe))
                  .execute();
              // The retention's statement as this product takes it; it matches no row.
              deleteBefore(tx, Long.MIN_VALUE, 1);
            } catch (RuntimeException e) {
              // The probe's own failure is the cause to report, not the rollback's on a connection
              // that failure may have broken.
              try {
                c.rollback();
              } catch (java.sql.SQLException | RuntimeException suppressed) {
                e.addSuppressed(suppressed);
              }
              throw e;
            }
            c.rollback();
            c.setAutoCommit(auto);
            return null;
          });
    } catch (DataAccessException e) {
      RuntimeException failure = DatabaseErrors.toStoreException("use " + TABLE, e, 1);
      if (!(failure instanceof StoreRejectedException)) {
        throw failure;
      }
      throw new UnusableTableException(
          "table "
              + TABLE
              + " cannot be used ("
              + failure.getMessage()
              + "); create it as sql/schema.sql does and grant SELECT, INSERT,"
              + " UPDATE, DELETE on it, or start with --ledger off");
    }
  }

  /** Records {@code [start, end)} taken (or handed back) by {@code server} at {@code nowMillis}. */
  public static void insert(
      DSLContext tx,
      String bizTag,
      long start,
      long end,
      RangeKind kind,
      String server,
      long nowMillis) {
    tx.insertInto(LEAF_LEDGER)
        .set(LEAF_LEDGER.BIZ_TAG, bizTag)
        .set(LEAF_LEDGER.START_ID, start)
        .set(LEAF_LEDGER.END_ID, end)
        .set(LEAF_LEDGER.KIND, kind.text())
        .set(LEAF_LEDGER.SERVER, server)
        .set(LEAF_LEDGER.TIME_MS, nowMillis)
        .execute();
  }

  /** The record that answers for {@code id} (see the class comment); empty when none holds it. */
  public static Optional<IssuedRange> holding(DSLContext db, String bizTag, long id) {
    // Read before the records: a take recorded after this read is among them and answers.
    Long maxId =
        db.select(LEAF_ALLOC.MAX_ID)
            .from(LEAF_ALLOC)
            .where(LEAF_ALLOC.BIZ_TAG.eq(bizTag))
            .fetchOne(LEAF_ALLOC.MAX_ID);
    List<IssuedRange> near =
        db.select(
                LEAF_LEDGER.START_ID,
                LEAF_LEDGER.END_ID,
                LEAF_LEDGER.SERVER,
                LEAF_LEDGER.TIME_MS,
                LEAF_LEDGER.KIND)
            .from(LEAF_LEDGER)
            .where(LEAF_LEDGER.BIZ_TAG.eq(bizTag))
            .and(LEAF_LEDGER.START_ID.le(id))
            .orderBy(LEAF_LEDGER.START_ID.desc())
            .limit(CANDIDATES)
            .fetch(
                r ->
                    new IssuedRange(
                        r.value1(), r.value2(), r.value3(), r.value4(), RangeKind.of(r.value5())));
    return answer(near, id, maxId == null ? NO_MAX_ID : maxId);
  }

  /** {@link #answer}'s {@code maxId} when the tag's row is gone: nothing moves it any more. */
  public static final long NO_MAX_ID = Long.MIN_VALUE;

  /**
   * Of {@code records}, the one that answers for {@code id}, given the tag's {@code max_id} read
   * before them. A hand-back's record answers only while {@code max_id} is at or below the ID: a
   * take of the ID since, recorded, would answer itself; one that moved {@code max_id} past it
   * without a record (a server with {@code --ledger off}) may have issued it, so then no record
   * answers (no earlier one either: the hand-back is later than all of them).
   */
  public static Optional<IssuedRange> answer(List<IssuedRange> records, long id, long maxId) {
    IssuedRange best = null;
    for (IssuedRange r : records) {
      if (r.holds(id)
          && (best == null
              || r.start() > best.start()
              || r.start() == best.start() && r.kind().issues() && !best.kind().issues())) {
        best = r;
      }
    }
    if (best != null && !best.kind().issues() && maxId > id) {
      return Optional.empty();
    }
    return Optional.ofNullable(best);
  }

  /**
   * In the hand-back's transaction, after the conditional UPDATE of {@code max_id}: records {@code
   * [first, end)} as returned. Once {@code max_id} is {@code first}, no ID at or above it is
   * issued: every earlier hand-back starting there or higher is taken into this record (its end
   * widens this one's), and this server's segments wholly inside go (none of their IDs was issued,
   * and the next take of the tag starts at {@code first}, which the primary key must not find
   * taken). So the record that starts highest below an ID always tells its latest event.
   */
  public static void recordReturned(
      DSLContext tx, String bizTag, long first, long end, String server, long nowMillis) {
    Long reaching =
        tx.select(DSL.max(LEAF_LEDGER.END_ID))
            .from(LEAF_LEDGER)
            .where(LEAF_LEDGER.BIZ_TAG.eq(bizTag))
            .and(LEAF_LEDGER.START_ID.ge(first))
            .and(LEAF_LEDGER.KIND.eq(RangeKind.RETURNED.text()))
            .fetchOne(0, Long.class);
    tx.deleteFrom(LEAF_LEDGER)
        .where(LEAF_LEDGER.BIZ_TAG.eq(bizTag))
        .and(LEAF_LEDGER.START_ID.ge(first))
        .and(
            LEAF_LEDGER
                .KIND
                .eq(RangeKind.RETURNED.text())
                .or(
                    LEAF_LEDGER
                        .KIND
                        .eq(RangeKind.SEGMENT.text())
                        .and(LEAF_LEDGER.SERVER.eq(server))
                        .and(LEAF_LEDGER.END_ID.le(end))))
        .execute();
    insert(
        tx,
        bizTag,
        first,
        reaching == null ? end : Math.max(end, reaching),
        RangeKind.RETURNED,
        server,
        nowMillis);
  }

  /**
   * Deletes at most {@code limit} records older than {@code cutoffMillis}; returns how many. One
   * short statement: {@code DELETE … LIMIT} on MySQL, MariaDB and H2, a {@code ctid} subquery on
   * PostgreSQL (which has no {@code DELETE … LIMIT}).
   */
  public static int deleteBefore(DSLContext db, long cutoffMillis, int limit) {
    String sql =
        db.dialect().family() == SQLDialect.POSTGRES
            ? "DELETE FROM leaf_ledger WHERE ctid IN (SELECT ctid FROM leaf_ledger WHERE time_ms <"
                + " ? LIMIT "
                + limit
                + ")"
            : "DELETE FROM leaf_ledger WHERE time_ms < ? LIMIT " + limit;
    return db.execute(sql, cutoffMillis);
  }
}
