package io.leaf.server.store;

import static io.leaf.server.store.generated.Tables.LEAF_ALLOC;

import io.leaf.server.ledger.IssuedRange;
import io.leaf.server.ledger.JooqLedger;
import io.leaf.server.ledger.Ledger;
import io.leaf.server.ledger.LedgerOffException;
import io.leaf.server.ledger.LedgerSettings;
import io.leaf.server.ledger.RangeKind;
import java.sql.DatabaseMetaData;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jooq.Condition;
import org.jooq.Constants;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link SegmentStore} on jOOQ over a pooled {@link DataSource}: MySQL/MariaDB, PostgreSQL or H2,
 * the dialect the URL implies (see {@link DataSources#dialectOf}), on {@code leaf_alloc} as the
 * database holds it (see {@link LeafAllocTable}), read when the store is first opened.
 *
 * <p>Thread-safe. Every method is one short transaction. {@link #nextSegment} moves {@code max_id}
 * with one atomic UPDATE that also returns the value it wrote, which is what makes the segments of
 * several servers sharing one database (or one Galera cluster, through any of its nodes) disjoint.
 * Writes that lose a write conflict are retried at once a few times before they fail.
 *
 * <p>With the ledger on ({@link LedgerSettings}) or a {@link TakeFence}, every take is one
 * transaction: the take's statement, the fence's checks, the {@code leaf_ledger} record of its
 * range, COMMIT; the range is used only once COMMIT returned, and any failure before or at it
 * leaves the range unused (a gap); a refusal of the fence rolls back and leaves no trace.
 */
public final class JooqSegmentStore implements SegmentStore, Ledger {

  private static final Logger log = LoggerFactory.getLogger(JooqSegmentStore.class);

  /** On the URL's dialect: opens the store and answers pings until it is open. */
  private final DSLContext dsl;

  private final DataSource dataSource;
  private final InstantSource clock;
  private final ConflictRetry retry;
  private final LedgerSettings ledger;
  private final TakeFence fence;

  /** What {@link #open()} found; null until the store has been opened once. */
  private volatile Opened opened;

  /** Statements run on {@code dsl} against {@code table}. */
  private record Opened(DSLContext dsl, LeafAllocTable table, SegmentTake take) {}

  /** A store without the ledger ({@link LedgerSettings#OFF}). */
  public JooqSegmentStore(DataSource dataSource, SQLDialect dialect, InstantSource clock) {
    this(dataSource, dialect, clock, LedgerSettings.OFF);
  }

  public JooqSegmentStore(
      DataSource dataSource, SQLDialect dialect, InstantSource clock, LedgerSettings ledger) {
    this(dataSource, dialect, clock, ConflictRetry.DEFAULT, ledger);
  }

  JooqSegmentStore(
      DataSource dataSource, SQLDialect dialect, InstantSource clock, ConflictRetry retry) {
    this(dataSource, dialect, clock, retry, LedgerSettings.OFF);
  }

  JooqSegmentStore(
      DataSource dataSource,
      SQLDialect dialect,
      InstantSource clock,
      ConflictRetry retry,
      LedgerSettings ledger) {
    this(dataSource, dialect, clock, retry, ledger, TakeFence.UNCHECKED);
  }

  /** The server's store: every take checks {@code fence} in its own transaction before COMMIT. */
  public JooqSegmentStore(
      DataSource dataSource,
      SQLDialect dialect,
      InstantSource clock,
      LedgerSettings ledger,
      TakeFence fence) {
    this(dataSource, dialect, clock, ConflictRetry.DEFAULT, ledger, fence);
  }

  JooqSegmentStore(
      DataSource dataSource,
      SQLDialect dialect,
      InstantSource clock,
      ConflictRetry retry,
      LedgerSettings ledger,
      TakeFence fence) {
    this.fence = fence;
    this.dsl = OwnTables.dsl(dataSource, dialect);
    this.dataSource = dataSource;
    this.clock = clock;
    this.retry = retry;
    this.ledger = ledger;
  }

  public LedgerSettings ledger() {
    return ledger;
  }

  /**
   * Opens the store: creates {@code leaf_alloc} ({@code sql/schema.sql}) when the database has no
   * such table, leaving an existing one alone, and reads the table's shape. Idempotent; the server
   * calls it at start until it succeeds, and any other method opens the store first if needed.
   * Whether the table exists is read from the JDBC metadata, so a user without the CREATE privilege
   * can run a server on a table a DBA created (a {@code CREATE TABLE IF NOT EXISTS} is refused to
   * such a user even when the table exists).
   *
   * <p>With the ledger on, {@code leaf_ledger} is created the same way when missing, and this user
   * must be able to write it.
   *
   * @throws UnusableTableException the table exists but Leaf cannot use it, or the ledger is on and
   *     {@code leaf_ledger} cannot be created or written
   */
  public void createSchemaIfMissing() {
    Opened o = open();
    if (ledger.on()) {
      openLedger(o);
    }
    opened = o;
  }

  /** {@link JooqLedger#open}: {@code leaf_ledger} there and writable, or the start stops. */
  private void openLedger(Opened o) {
    JooqLedger.open(o.dsl(), ledger.server(), clock.millis());
  }

  /** The store as opened; opens it first if needed (calls racing to do so each open: harmless). */
  private Opened opened() {
    Opened o = opened;
    if (o == null) {
      o = open();
      if (ledger.on()) {
        openLedger(o);
      }
      opened = o;
    }
    return o;
  }

  private Opened open() {
    return guard(
        "open leaf_alloc",
        () ->
            dsl.connectionResult(
                c -> {
                  DatabaseMetaData md = c.getMetaData();
                  DatabaseProduct product = DatabaseProduct.of(md, dsl.dialect());
                  SQLDialect dialect = product.dialect();
                  Optional<LeafAllocTable> table = LeafAllocTable.read(md, dialect);
                  if (table.isEmpty()) {
                    LeafAllocTable.create(DSL.using(c, dialect, dsl.settings()), product);
                    table = LeafAllocTable.read(md, dialect);
                  }
                  LeafAllocTable found =
                      table.orElseThrow(
                          () ->
                              new UnusableTableException(
                                  "table leaf_alloc was created but the database's metadata does"
                                      + " not show it"));
                  log.info("leaf_alloc on {}: {}", product, found.describe());
                  if (!product.dialectSupportsVersion()) {
                    // jOOQ's own warning is off (logback.xml): it reads MariaDB 10 as 5.5 through
                    // Connector/J.
                    log.warn(
                        "jOOQ {} does not list {} {} among the versions its dialect supports",
                        Constants.VERSION,
                        product.name(),
                        product.version());
                  }
                  return new Opened(
                      DSL.using(dsl.configuration().connectionProvider(), dialect, dsl.settings()),
                      found,
                      SegmentTake.of(product, dataSource));
                }));
  }

  /** The dialect statements use: the URL's until the store is open, then the server's. */
  public SQLDialect dialect() {
    Opened o = opened;
    return o == null ? dsl.dialect() : o.dsl().dialect();
  }

  @Override
  public TagRecord createTag(String bizTag, long maxId, int step, String description) {
    Opened o = opened();
    long now = clock.millis();
    try {
      return guard(
          "create tag " + bizTag,
          "INSERT and SELECT",
          () ->
              retry.run(
                  () ->
                      o.dsl()
                          .transactionResult(
                              cfg -> {
                                DSLContext tx = cfg.dsl();
                                tx.insertInto(LEAF_ALLOC)
                                    .set(LEAF_ALLOC.BIZ_TAG, bizTag)
                                    .set(LEAF_ALLOC.MAX_ID, maxId)
                                    .set(LEAF_ALLOC.STEP, step)
                                    .set(LEAF_ALLOC.DESCRIPTION, description)
                                    .set(LEAF_ALLOC.UPDATE_TIME, o.table().updateTimeAt(now))
                                    .execute();
                                // Read back in the same transaction: update_time as the database
                                // stored it.
                                return read(tx, o.table(), bizTag).orElseThrow();
                              })));
    } catch (DatabaseErrors.DuplicateKey e) {
      throw new TagAlreadyExistsException(bizTag);
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>Judged by the {@code biz_tag} column read when the store opened ({@link BizTagColumn}); true
   * until then.
   */
  @Override
  public boolean mayHold(String bizTag) {
    Opened o = opened;
    return o == null || o.table().bizTag().mayHold(bizTag);
  }

  @Override
  public Optional<TagRecord> getTag(String bizTag) {
    Opened o = opened();
    try {
      return byName(
          o,
          bizTag,
          () -> guard("read tag " + bizTag, "SELECT", () -> read(o.dsl(), o.table(), bizTag)));
    } catch (TagNotFoundException e) {
      return Optional.empty();
    }
  }

  /**
   * Runs {@code work}, a statement that finds {@code bizTag}'s row. None runs for a name the column
   * cannot hold, and a name the database cannot compare with the column's character set
   * (MySQL/MariaDB's "Illegal mix of collations", say on a latin1 table) is no row's name either:
   * both are {@link TagNotFoundException}.
   */
  private static <T> T byName(Opened o, String bizTag, Supplier<T> work) {
    if (!o.table().bizTag().mayHold(bizTag)) {
      throw new TagNotFoundException(bizTag);
    }
    try {
      return work.get();
    } catch (StoreRejectedException e) {
      if (DatabaseErrors.isCollationMix(e)) {
        throw new TagNotFoundException(bizTag);
      }
      throw e;
    }
  }

  private static Optional<TagRecord> read(DSLContext db, LeafAllocTable table, String bizTag) {
    return table.select(db).where(LEAF_ALLOC.BIZ_TAG.eq(bizTag)).fetchOptional(table::toTag);
  }

  @Override
  public TagRecord updateStep(String bizTag, int step) {
    Opened o = opened();
    long now = clock.millis();
    return byName(
        o,
        bizTag,
        () ->
            guard(
                "update step of " + bizTag,
                "UPDATE and SELECT",
                () ->
                    retry.run(
                        () ->
                            o.dsl()
                                .transactionResult(
                                    cfg -> {
                                      DSLContext tx = cfg.dsl();
                                      int updated =
                                          tx.update(LEAF_ALLOC)
                                              .set(LEAF_ALLOC.STEP, step)
                                              .set(
                                                  LEAF_ALLOC.UPDATE_TIME,
                                                  o.table().updateTimeAt(now))
                                              .where(LEAF_ALLOC.BIZ_TAG.eq(bizTag))
                                              .execute();
                                      if (updated == 0) {
                                        throw new TagNotFoundException(bizTag);
                                      }
                                      return read(tx, o.table(), bizTag).orElseThrow();
                                    }))));
  }

  @Override
  public TagPage listTags(String afterBizTag, int limit) {
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be positive: " + limit);
    }
    Opened o = opened();
    Condition after = afterBizTag == null ? DSL.noCondition() : LEAF_ALLOC.BIZ_TAG.gt(afterBizTag);
    List<TagRecord> rows;
    try {
      rows =
          guard(
              "list tags",
              "SELECT",
              () ->
                  o.table()
                      .select(o.dsl())
                      .where(after)
                      .orderBy(LEAF_ALLOC.BIZ_TAG)
                      .limit(limit + 1)
                      .fetch(o.table()::toTag));
    } catch (StoreRejectedException e) {
      if (afterBizTag != null && DatabaseErrors.isCollationMix(e)) {
        throw new InvalidPageKeyException(
            "page key \""
                + afterBizTag
                + "\" cannot be a biz_tag"
                + " of this leaf_alloc: "
                + e.getCause().getMessage(),
            e);
      }
      throw e;
    }
    boolean hasMore = rows.size() > limit;
    return new TagPage(hasMore ? List.copyOf(rows.subList(0, limit)) : rows, hasMore);
  }

  /**
   * {@inheritDoc}
   *
   * <p>The range comes from the one autocommit statement of the product's {@link SegmentTake},
   * whose own reply carries the new {@code max_id}. Write conflicts are retried ({@link
   * ConflictRetry}).
   */
  @Override
  public SegmentRange nextSegment(String bizTag, int step) {
    return take(bizTag, step, RangeKind.SEGMENT);
  }

  /** {@inheritDoc} Recorded as {@link RangeKind#RESERVE} with the ledger on. */
  @Override
  public SegmentRange reserveRange(String bizTag, int count) {
    if (count <= 0) {
      throw new IllegalArgumentException("count must be positive: " + count);
    }
    return take(bizTag, count, RangeKind.RESERVE);
  }

  private SegmentRange take(String bizTag, int step, RangeKind kind) {
    if (step < 0) {
      throw new IllegalArgumentException("step must be positive or TABLE_STEP: " + step);
    }
    Opened o = opened();
    try {
      return byName(
          o,
          bizTag,
          () ->
              guard(
                  "take a segment of " + bizTag,
                  "UPDATE and SELECT",
                  () ->
                      retry.run(
                          () ->
                              o.dsl()
                                  .connectionResult(
                                      c -> {
                                        DSLContext db =
                                            DSL.using(c, o.dsl().dialect(), o.dsl().settings());
                                        if (!ledger.on() && !fence.checks()) {
                                          if (!c.getAutoCommit()) {
                                            c.setAutoCommit(true);
                                          }
                                          return o.take()
                                              .take(c, db, o.table(), bizTag, step, clock.millis());
                                        }
                                        long now = clock.millis();
                                        return o.take()
                                            .takeRecorded(
                                                c,
                                                db,
                                                o.table(),
                                                bizTag,
                                                step,
                                                now,
                                                range -> {
                                                  fence.check(c, db, bizTag, range);
                                                  if (ledger.on()) {
                                                    JooqLedger.insert(
                                                        db,
                                                        bizTag,
                                                        range.start(),
                                                        range.end(),
                                                        kind,
                                                        ledger.server(),
                                                        now);
                                                  }
                                                });
                                      }))));
    } catch (DatabaseErrors.DuplicateKey e) {
      // The primary key found the range recorded already: the row went back (a restore).
      throw new StoreRejectedException(
          "the range of biz_tag "
              + bizTag
              + " that leaf_alloc's"
              + " max_id gives is recorded in leaf_ledger already: max_id went back (a restored"
              + " backup?); nothing was taken. Move max_id past the recorded ranges",
          e.getCause());
    }
  }

  /**
   * {@inheritDoc} Reads {@code leaf_ledger} ({@link JooqLedger#holding}).
   *
   * @throws LedgerOffException the store runs without the ledger
   */
  @Override
  public Optional<IssuedRange> whoIssued(String bizTag, long id) {
    if (!ledger.on()) {
      throw new LedgerOffException();
    }
    Opened o = opened();
    if (!o.table().bizTag().mayHold(bizTag)) {
      return Optional.empty();
    }
    return guard(
        "read leaf_ledger for " + bizTag,
        "SELECT on leaf_ledger",
        () -> JooqLedger.holding(o.dsl(), bizTag, id));
  }

  /**
   * {@inheritDoc} One transaction: the conditional UPDATE of {@code max_id} and, with the ledger
   * on, the {@link RangeKind#RETURNED} record ({@link JooqLedger#recordReturned}).
   */
  @Override
  public boolean handBack(String bizTag, long firstUnissued, long segmentEnd) {
    if (firstUnissued >= segmentEnd) {
      return false;
    }
    Opened o = opened();
    long now = clock.millis();
    return byName(
        o,
        bizTag,
        () ->
            guard(
                "hand back the rest of " + bizTag,
                "UPDATE",
                () ->
                    o.dsl()
                        .transactionResult(
                            cfg -> {
                              DSLContext tx = cfg.dsl();
                              if (!o.table().setBack(tx, bizTag, firstUnissued, segmentEnd, now)) {
                                return false;
                              }
                              if (ledger.on()) {
                                JooqLedger.recordReturned(
                                    tx, bizTag, firstUnissued, segmentEnd, ledger.server(), now);
                              }
                              return true;
                            })));
  }

  /**
   * Deletes at most {@code limit} ledger records older than {@code cutoffMillis} in one statement;
   * returns how many went.
   */
  public int deleteLedgerBefore(long cutoffMillis, int limit) {
    Opened o = opened();
    return guard(
        "delete old leaf_ledger records",
        "DELETE on leaf_ledger",
        () -> JooqLedger.deleteBefore(o.dsl(), cutoffMillis, limit));
  }

  @Override
  public void ping() {
    Opened o = opened;
    guard("ping", () -> (o == null ? dsl : o.dsl()).selectOne().fetch());
  }

  /**
   * Runs {@code work}, turning database failures into this package's exceptions ({@link
   * DatabaseErrors#toStoreException}). Our own exceptions thrown inside a transaction pass through
   * unchanged (jOOQ rolls back and rethrows).
   */
  private <T> T guard(String what, Supplier<T> work) {
    return guard(what, null, work);
  }

  /** As {@link #guard(String, Supplier)}; {@code privileges} are what {@code work} needs. */
  private <T> T guard(String what, String privileges, Supplier<T> work) {
    try {
      return work.get();
    } catch (DataAccessException e) {
      throw DatabaseErrors.toStoreException(what, privileges, e, retry.attempts());
    }
  }
}
