package io.leaf.server.sequence;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import io.leaf.server.store.OwnTable;
import java.time.InstantSource;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.exception.DataAccessException;
import org.jooq.exception.SQLStateClass;
import org.jooq.impl.DSL;

/**
 * {@link SectionStore} on the {@code leaf_sequence_section} table, created when missing; a deposed
 * owner's raise changes nothing.
 *
 * <p>Thread-safe; each method uses one pooled connection.
 */
public final class JooqSectionStore implements SectionStore {

  /*
   * A raise is one autocommit statement whose condition holds both the ceiling read and the lease
   * row of the section's group in leaf_sequence_lease (owner, epoch, STRICT, not expired by the
   * database's clock), so a deposed owner's raise changes nothing.
   */

  static final String TABLE = "leaf_sequence_section";

  private static final Table<Record> T = table(name(TABLE));
  private static final Field<String> TAG = field(name("biz_tag"), String.class);
  private static final Field<Integer> SECTION = field(name("section"), Integer.class);
  private static final Field<Long> CEILING = field(name("ceiling"), Long.class);
  private static final Field<Long> UPDATED = field(name("update_time"), Long.class);

  /** The groups' leases: rows of leaf_tag_lease's columns, one per group as {@code tag#group}. */
  public static final String LEASES = "leaf_sequence_lease";

  private static final Table<Record> LEASE = table(name(LEASES));
  private static final Field<String> LEASE_TAG = field(name(LEASES, "biz_tag"), String.class);
  private static final Field<Integer> ORDERING = field(name("ordering"), Integer.class);
  private static final Field<String> OWNER = field(name("owner"), String.class);
  private static final Field<Long> EPOCH = field(name("epoch"), Long.class);
  private static final Field<Long> EXPIRES = field(name("lease_expires_ms"), Long.class);

  /** leaf_tag_lease's code of STRICT. */
  private static final int STRICT = 2;

  private final DSLContext dsl;
  private final InstantSource clock;
  private final Field<Long> dbNow;
  private final OwnTable table;

  public JooqSectionStore(DataSource dataSource, SQLDialect dialect, InstantSource clock) {
    this.dsl = OwnTable.dsl(dataSource, dialect);
    this.clock = clock;
    this.table = new OwnTable(dsl, TABLE);
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
    table.create();
  }

  @Override
  public long ceiling(String bizTag, int section) {
    table.ensure();
    Long c =
        dsl.select(CEILING)
            .from(T)
            .where(TAG.eq(bizTag))
            .and(SECTION.eq(section))
            .fetchOne(CEILING);
    return c == null ? 0 : c;
  }

  @Override
  public Map<Integer, Long> raiseGroup(
      String bizTag, int group, long step, String owner, long epoch) {
    table.ensure();
    long now = clock.millis();
    int first = group * Sequences.PER_GROUP;
    int end = first + Sequences.PER_GROUP;
    List<Integer> sections = IntStream.range(first, end).boxed().toList();
    makeRows(bizTag, sections, now);
    return dsl.transactionResult(
        cfg -> {
          DSLContext tx = DSL.using(cfg);
          // The lease row locked until the commit: no other owner can take the group in between.
          if (tx.selectOne()
              .from(LEASE)
              .where(leased(Sequences.leaseKey(bizTag, group), owner, epoch))
              .forUpdate()
              .fetch()
              .isEmpty()) {
            return Map.<Integer, Long>of();
          }
          Map<Integer, Long> present =
              tx.select(SECTION, CEILING)
                  .from(T)
                  .where(TAG.eq(bizTag))
                  .and(SECTION.in(sections))
                  .forUpdate()
                  .fetchMap(SECTION, CEILING);
          tx.update(T)
              .set(CEILING, CEILING.plus(step))
              .set(UPDATED, now)
              .where(TAG.eq(bizTag))
              .and(SECTION.in(sections))
              .and(CEILING.lt(Section.MAX_CEILING - step))
              .execute();
          // Only the rows this raised, from what they held under the lock: a row too close to the
          // end, or one deleted meanwhile, is left to load (and raise or fail) on its own.
          Map<Integer, Long> raised = new java.util.HashMap<>();
          present.forEach(
              (i, before) -> {
                if (before < Section.MAX_CEILING - step) {
                  raised.put(i, before + step);
                }
              });
          return raised;
        });
  }

  /**
   * Makes the missing rows of {@code sections} at ceiling 0 (the same as no row), each statement on
   * its own: inserts inside the raise's transaction took InnoDB gap locks that deadlocked the
   * owners of neighbouring groups starting their terms at once.
   */
  private void makeRows(String bizTag, List<Integer> sections, long now) {
    for (int attempt = 0; attempt < 2; attempt++) {
      Set<Integer> present =
          new HashSet<>(
              dsl.select(SECTION)
                  .from(T)
                  .where(TAG.eq(bizTag))
                  .and(SECTION.in(sections))
                  .fetch(SECTION));
      if (present.size() == sections.size()) {
        return;
      }
      var rows = dsl.insertInto(T, TAG, SECTION, CEILING, UPDATED);
      for (int i : sections) {
        if (!present.contains(i)) {
          rows = rows.values(bizTag, i, 0L, now);
        }
      }
      try {
        rows.execute();
        return;
      } catch (DataAccessException e) {
        if (e.sqlStateClass() != SQLStateClass.C23_INTEGRITY_CONSTRAINT_VIOLATION) {
          throw e;
        }
        // Another term's start made some meanwhile: the rest again; rows still missing after
        // that load on their own.
      }
    }
  }

  private Condition leased(String leaseKey, String owner, long epoch) {
    return LEASE_TAG
        .eq(leaseKey)
        .and(OWNER.eq(owner))
        .and(EPOCH.eq(epoch))
        .and(ORDERING.eq(STRICT))
        .and(EXPIRES.gt(dbNow));
  }

  @Override
  public boolean raise(String bizTag, int section, long from, long to, String owner, long epoch) {
    table.ensure();
    Condition leased = leased(Sequences.leaseKey(bizTag, Sequences.groupOf(section)), owner, epoch);
    long now = clock.millis();
    if (from == 0) {
      if (dsl.update(T)
              .set(CEILING, to)
              .set(UPDATED, now)
              .where(TAG.eq(bizTag))
              .and(SECTION.eq(section))
              .and(CEILING.eq(0L))
              .and(DSL.exists(DSL.selectOne().from(LEASE).where(leased)))
              .execute()
          == 1) {
        return true; // a row made at 0 by a term's start
      }
      try {
        return dsl.insertInto(T, TAG, SECTION, CEILING, UPDATED)
                .select(
                    DSL.select(DSL.val(bizTag), DSL.val(section), DSL.val(to), DSL.val(now))
                        .from(LEASE)
                        .where(leased))
                .execute()
            == 1;
      } catch (DataAccessException e) {
        if (e.sqlStateClass() == SQLStateClass.C23_INTEGRITY_CONSTRAINT_VIOLATION) {
          return false; // the row exists: the ceiling read is no longer the ceiling
        }
        throw e;
      }
    }
    return dsl.update(T)
            .set(CEILING, to)
            .set(UPDATED, now)
            .where(TAG.eq(bizTag))
            .and(SECTION.eq(section))
            .and(CEILING.eq(from))
            .and(DSL.exists(DSL.selectOne().from(LEASE).where(leased)))
            .execute()
        == 1;
  }
}
