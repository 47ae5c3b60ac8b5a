package io.leaf.server.ordering;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import io.leaf.server.store.OwnTable;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import javax.sql.DataSource;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.conf.RenderQuotedNames;
import org.jooq.conf.Settings;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;

/**
 * {@link OrderingStore} on the {@code leaf_tag_lease} table, created when missing: each write is
 * one autocommit statement whose condition decides (so two servers, or two Galera nodes, never both
 * win), and expiry is compared with the database's own clock inside the statement.
 *
 * <p>Thread-safe; each method uses one pooled connection.
 */
public final class JooqOrderingStore implements OrderingStore {

  static final String TABLE = "leaf_tag_lease";

  private static final Field<String> TAG = field(name("biz_tag"), String.class);
  private static final Field<Integer> ORDERING = field(name("ordering"), Integer.class);
  private static final Field<String> OWNER = field(name("owner"), String.class);
  private static final Field<Long> EPOCH = field(name("epoch"), Long.class);
  private static final Field<Long> EXPIRES = field(name("lease_expires_ms"), Long.class);
  private static final Field<Long> UPDATED = field(name("update_time"), Long.class);

  private final Table<Record> rows;
  private final String tableName;
  private final DSLContext dsl;
  private final InstantSource clock;
  private final Field<Long> dbNow;

  public JooqOrderingStore(DataSource dataSource, SQLDialect dialect, InstantSource clock) {
    this(dataSource, dialect, clock, TABLE);
  }

  /**
   * The same rules on {@code tableName}, a table of {@code leaf_tag_lease}'s columns (the
   * sequences' group leases use {@code leaf_sequence_lease}).
   */
  public JooqOrderingStore(
      DataSource dataSource, SQLDialect dialect, InstantSource clock, String tableName) {
    this.tableName = tableName;
    this.rows = table(name(tableName));
    this.dsl =
        DSL.using(
            dataSource,
            dialect,
            new Settings()
                .withRenderQuotedNames(RenderQuotedNames.NEVER)
                .withRenderSchema(false)
                .withExecuteLogging(false));
    this.clock = clock;
    this.dbNow =
        switch (dialect.family()) {
          case MYSQL, MARIADB ->
              DSL.field("CAST(UNIX_TIMESTAMP(CURRENT_TIMESTAMP(3)) * 1000 AS SIGNED)", Long.class);
          default ->
              DSL.field(
                  "CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP(3)) * 1000 AS BIGINT)", Long.class);
        };
  }

  @Override
  public void createSchemaIfMissing() {
    // The statement of sql/schema.sql (or schema-postgresql.sql), as the other own tables.
    new OwnTable(dsl, tableName).create();
  }

  @Override
  public LeaseRow read(String bizTag) {
    try {
      return readRow(bizTag);
    } catch (DataAccessException e) {
      if (missingTable(e)) {
        return LeaseRow.none(bizTag); // no table: no tag was ever made STRICT
      }
      throw e;
    }
  }

  private LeaseRow readRow(String bizTag) {
    Record r =
        dsl.select(TAG, ORDERING, OWNER, EPOCH, EXPIRES, dbNow.as("db_now"))
            .from(rows)
            .where(TAG.eq(bizTag))
            .fetchOne();
    if (r == null) {
      return LeaseRow.none(bizTag);
    }
    return row(r);
  }

  @Override
  public List<LeaseRow> readAll() {
    try {
      return readRows();
    } catch (DataAccessException e) {
      if (missingTable(e)) {
        return List.of();
      }
      throw e;
    }
  }

  /** MySQL's and H2's 42S02, PostgreSQL's 42P01, H2's 42S04 (an empty database). */
  private static boolean missingTable(DataAccessException e) {
    String state = e.sqlState();
    return "42S02".equals(state)
        || "42P01".equals(state)
        || "42102".equals(state)
        || "42104".equals(state)
        || "42S04".equals(state);
  }

  private List<LeaseRow> readRows() {
    return dsl.select(TAG, ORDERING, OWNER, EPOCH, EXPIRES, dbNow.as("db_now"))
        .from(rows)
        .orderBy(TAG)
        .fetch(JooqOrderingStore::row);
  }

  @Override
  public void setOrdering(String bizTag, TagOrdering ordering) {
    for (int attempt = 0; ; attempt++) {
      int updated =
          dsl.update(rows)
              .set(ORDERING, ordering.code())
              .set(UPDATED, clock.millis())
              .where(TAG.eq(bizTag))
              .execute();
      if (updated > 0) {
        return;
      }
      try {
        dsl.insertInto(rows, TAG, ORDERING, OWNER, EPOCH, EXPIRES, UPDATED)
            .values(bizTag, ordering.code(), "", 0L, 0L, clock.millis())
            .execute();
        return;
      } catch (DataAccessException e) {
        if (attempt > 0) {
          throw e; // Not a race with another insert: the database's reason as it is.
        }
      }
    }
  }

  @Override
  public OptionalLong acquire(String bizTag, String owner, long heldEpoch, Duration ttl) {
    Condition free = OWNER.eq("").or(EXPIRES.lt(dbNow));
    if (heldEpoch > 0) {
      free = free.or(OWNER.eq(owner).and(EPOCH.eq(heldEpoch)));
    }
    int won =
        dsl.update(rows)
            .set(OWNER, owner)
            .set(EPOCH, EPOCH.plus(1))
            .set(EXPIRES, dbNow.plus(ttl.toMillis()))
            .set(UPDATED, clock.millis())
            .where(TAG.eq(bizTag))
            .and(ORDERING.eq(TagOrdering.STRICT.code()))
            .and(free)
            .execute();
    if (won == 0) {
      return OptionalLong.empty();
    }
    Long epoch =
        dsl.select(EPOCH).from(rows).where(TAG.eq(bizTag)).and(OWNER.eq(owner)).fetchOne(EPOCH);
    return epoch == null ? OptionalLong.empty() : OptionalLong.of(epoch);
  }

  @Override
  public boolean renew(String bizTag, String owner, long epoch, Duration ttl) {
    return dsl.update(rows)
            .set(EXPIRES, dbNow.plus(ttl.toMillis()))
            .set(UPDATED, clock.millis())
            .where(TAG.eq(bizTag))
            .and(OWNER.eq(owner))
            .and(EPOCH.eq(epoch))
            .and(ORDERING.eq(TagOrdering.STRICT.code()))
            .execute()
        == 1;
  }

  /** Leases renewed per pair of statements. */
  private static final int RENEWALS_PER_STATEMENT = 500;

  /**
   * One update of every held row still naming this owner, its epoch and STRICT, then one read of
   * which rows name them now (per 500 leases): what the update renewed.
   */
  @Override
  public Set<String> renewAll(Map<String, Long> held, String owner, Duration ttl) {
    Set<String> renewed = new HashSet<>();
    List<Map.Entry<String, Long>> all = new ArrayList<>(held.entrySet());
    for (int from = 0; from < all.size(); from += RENEWALS_PER_STATEMENT) {
      List<Map.Entry<String, Long>> chunk =
          all.subList(from, Math.min(all.size(), from + RENEWALS_PER_STATEMENT));
      Condition ours =
          DSL.or(chunk.stream().map(e -> TAG.eq(e.getKey()).and(EPOCH.eq(e.getValue()))).toList());
      Condition strict = OWNER.eq(owner).and(ORDERING.eq(TagOrdering.STRICT.code()));
      dsl.update(rows)
          .set(EXPIRES, dbNow.plus(ttl.toMillis()))
          .set(UPDATED, clock.millis())
          .where(strict)
          .and(ours)
          .execute();
      // Whatever the update did not match differs in owner, epoch or ordering now, and stays so:
      // no one takes an unexpired lease.
      dsl.select(TAG).from(rows).where(strict).and(ours).fetch(TAG).forEach(renewed::add);
    }
    return renewed;
  }

  @Override
  public void release(String bizTag, String owner, long epoch) {
    dsl.update(rows)
        .set(EXPIRES, 0L)
        .set(UPDATED, clock.millis())
        .where(TAG.eq(bizTag))
        .and(OWNER.eq(owner))
        .and(EPOCH.eq(epoch))
        .execute();
  }

  private static LeaseRow row(Record r) {
    return new LeaseRow(
        r.get(TAG),
        TagOrdering.ofCode(r.get(ORDERING)),
        r.get(OWNER),
        r.get(EPOCH),
        r.get(EXPIRES),
        r.get("db_now", Long.class));
  }
}
