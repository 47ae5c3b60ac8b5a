package io.leaf.server.store;

import static io.leaf.server.store.generated.Tables.LEAF_ALLOC;

import io.leaf.server.db.Dialect;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;

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
 * <p>With an active {@link TakeGuard} (the region's fence, the ledger's record), every take is one
 * transaction: the take's statement, the guard, COMMIT; the range is used only once COMMIT
 * returned, and any failure before or at it leaves the range unused (a gap); a refusal of the guard
 * rolls back and leaves no trace.
 */
public final class JooqSegmentStore implements SegmentStore {

  /** On the URL's dialect: opens the store and answers pings until it is open. */
  private final DSLContext dsl;

  private final InstantSource clock;
  private final ConflictRetry retry;
  private final TakeGuard guard;
  private final SegmentTake take;

  /** What {@link #open()} found; null until the store has been opened once. */
  private volatile Opened opened;

  /** Statements run on {@code dsl} against {@code table}. */
  private record Opened(DSLContext dsl, LeafAllocTable table) {}

  /** A store whose takes are single autocommit statements ({@link TakeGuard#NONE}). */
  public JooqSegmentStore(DataSource dataSource, SQLDialect dialect, InstantSource clock) {
    this(dataSource, dialect, clock, TakeGuard.NONE);
  }

  /** The server's store: every take runs {@code guard} in its own transaction before COMMIT. */
  public JooqSegmentStore(
      DataSource dataSource, SQLDialect dialect, InstantSource clock, TakeGuard guard) {
    this(dataSource, dialect, clock, ConflictRetry.DEFAULT, guard);
  }

  JooqSegmentStore(
      DataSource dataSource,
      SQLDialect dialect,
      InstantSource clock,
      ConflictRetry retry,
      TakeGuard guard) {
    this.dsl = OwnTable.dsl(dataSource, dialect);
    this.clock = clock;
    this.retry = retry;
    this.guard = guard;
    this.take = new SegmentTake(dataSource, guard);
  }

  /**
   * Opens the store: {@code leaf_alloc} found or created ({@link LeafAllocTable#open}), then the
   * guard's needs ({@link TakeGuard#open}). Idempotent; the server calls it at start until it
   * succeeds, and any other method opens the store first if needed.
   *
   * @throws UnusableTableException the table exists but Leaf cannot use it, or the guard's cannot
   *     be used
   */
  public void createSchemaIfMissing() {
    opened = open();
  }

  /** The store as opened; opens it first if needed (calls racing to do so each open: harmless). */
  private Opened opened() {
    Opened o = opened;
    if (o == null) {
      o = open();
      opened = o;
    }
    return o;
  }

  private Opened open() {
    LeafAllocTable table =
        guard(
            "open leaf_alloc", null, () -> dsl.connectionResult(c -> LeafAllocTable.open(c, dsl)));
    Opened o =
        new Opened(
            DSL.using(
                dsl.configuration().connectionProvider(),
                table.product().dialect(),
                dsl.settings()),
            table);
    guard.open(o.dsl());
    return o;
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
      return retried(
          "create tag " + bizTag,
          "INSERT and SELECT",
          () ->
              o.dsl()
                  .transactionResult(
                      cfg -> {
                        o.table().insert(cfg.dsl(), bizTag, maxId, step, description, now);
                        // Read back in the same transaction: update_time as the database stored it.
                        return read(cfg.dsl(), o.table(), bizTag).orElseThrow();
                      }));
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
      return o.table()
          .bizTag()
          .byName(
              bizTag,
              () -> guard("read tag " + bizTag, "SELECT", () -> read(o.dsl(), o.table(), bizTag)));
    } catch (TagNotFoundException e) {
      return Optional.empty();
    }
  }

  private static Optional<TagRecord> read(DSLContext db, LeafAllocTable table, String bizTag) {
    return table.select(db).where(LEAF_ALLOC.BIZ_TAG.eq(bizTag)).fetchOptional(table::toTag);
  }

  @Override
  public TagRecord updateStep(String bizTag, int step) {
    Opened o = opened();
    long now = clock.millis();
    return o.table()
        .bizTag()
        .byName(
            bizTag,
            () ->
                retried(
                    "update step of " + bizTag,
                    "UPDATE and SELECT",
                    () ->
                        o.dsl()
                            .transactionResult(
                                cfg -> {
                                  if (!o.table().setStep(cfg.dsl(), bizTag, step, now)) {
                                    throw new TagNotFoundException(bizTag);
                                  }
                                  return read(cfg.dsl(), o.table(), bizTag).orElseThrow();
                                })));
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
   * <p>The range comes from the one statement of the product's {@link Dialect#take}, whose own
   * reply carries the new {@code max_id}. Write conflicts are retried ({@link ConflictRetry}).
   */
  @Override
  public SegmentRange nextSegment(String bizTag, int step) {
    return take(bizTag, step, false);
  }

  /** {@inheritDoc} A reservation to the guard ({@link TakeGuard.Take#reservation}). */
  @Override
  public SegmentRange reserveRange(String bizTag, int count) {
    if (count <= 0) {
      throw new IllegalArgumentException("count must be positive: " + count);
    }
    return take(bizTag, count, true);
  }

  private SegmentRange take(String bizTag, int step, boolean reservation) {
    if (step < 0) {
      throw new IllegalArgumentException("step must be positive or TABLE_STEP: " + step);
    }
    Opened o = opened();
    try {
      return o.table()
          .bizTag()
          .byName(
              bizTag,
              () ->
                  retried(
                      "take a segment of " + bizTag,
                      "UPDATE and SELECT",
                      () ->
                          take.take(
                              o.dsl(),
                              o.table().product().rules(),
                              o.table(),
                              new SegmentTake.Ask(bizTag, step, reservation, clock.millis()))));
    } catch (DatabaseErrors.DuplicateKey e) {
      // A guard's record found the range recorded already: the row went back (a restore).
      throw new StoreRejectedException(
          "the range of biz_tag "
              + bizTag
              + " that leaf_alloc's"
              + " max_id gives is recorded in leaf_ledger already: max_id went back (a restored"
              + " backup?); nothing was taken. Move max_id past the recorded ranges",
          e.getCause());
    }
  }

  /** What a hand-back runs in its transaction once {@code max_id} went back. */
  @FunctionalInterface
  public interface AfterSetBack {
    void run(DSLContext tx, long nowMillis);
  }

  /**
   * The hand-back's write: in one transaction, {@code max_id} goes back to {@code first} only if it
   * still is {@code end}, then {@code after} runs; returns whether it went back (false: another
   * take moved it, nothing changed, or the range is empty). When {@code after} throws, nothing is
   * handed back and its failure is thrown.
   */
  public boolean setBack(String bizTag, long first, long end, AfterSetBack after) {
    if (first >= end) {
      return false;
    }
    Opened o = opened();
    long now = clock.millis();
    return o.table()
        .bizTag()
        .byName(
            bizTag,
            () ->
                guard(
                    "hand back the rest of " + bizTag,
                    "UPDATE",
                    () -> SegmentTake.setBack(o.dsl(), o.table(), bizTag, first, end, now, after)));
  }

  /**
   * Runs {@code work} on the opened store's statements (opening it first if needed), its failures
   * mapped as this store's ({@link DatabaseErrors#toStoreException}); {@code privileges} are what
   * it needs.
   */
  public <T> T query(String what, String privileges, Function<DSLContext, T> work) {
    Opened o = opened();
    return guard(what, privileges, () -> work.apply(o.dsl()));
  }

  @Override
  public void ping() {
    Opened o = opened;
    guard("ping", null, () -> (o == null ? dsl : o.dsl()).selectOne().fetch());
  }

  /** {@link #guard} of {@code work} retried on conflicts. */
  private <T> T retried(String what, String privileges, Supplier<T> work) {
    return guard(what, privileges, () -> retry.run(work));
  }

  /**
   * Runs {@code work}, turning database failures into this package's exceptions ({@link
   * DatabaseErrors#toStoreException}); {@code privileges} are what it needs. Our own exceptions
   * thrown inside a transaction pass through unchanged (jOOQ rolls back and rethrows).
   */
  private <T> T guard(String what, String privileges, Supplier<T> work) {
    try {
      return work.get();
    } catch (DataAccessException e) {
      throw DatabaseErrors.toStoreException(what, privileges, e, retry.attempts());
    }
  }
}
