package io.leaf.server.store;

import static io.leaf.server.store.generated.Tables.LEAF_ALLOC;

import io.leaf.server.store.generated.tables.records.LeafAllocRecord;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record2;
import org.jooq.SQLDialect;
import org.jooq.conf.RenderQuotedNames;
import org.jooq.conf.Settings;
import org.jooq.exception.DataAccessException;
import org.jooq.exception.IntegrityConstraintViolationException;
import org.jooq.impl.DSL;

/**
 * {@link SegmentStore} on jOOQ over a pooled {@link DataSource}: MySQL/MariaDB or H2, the dialect
 * chosen by the caller (see {@link DataSources#dialectOf}).
 *
 * <p>Thread-safe. Every method is one short transaction; {@link #nextSegment} holds the row lock
 * of its tag between the UPDATE and the SELECT, which is what makes the segments of several
 * servers sharing one database disjoint.
 */
public final class JooqSegmentStore implements SegmentStore {

  private static final String SCHEMA_RESOURCE = "/sql/schema.sql";

  private final DSLContext dsl;
  private final InstantSource clock;

  public JooqSegmentStore(DataSource dataSource, SQLDialect dialect, InstantSource clock) {
    // Unquoted names: the DDL creates unquoted identifiers, which H2 folds to upper case and
    // MySQL keeps as written; both then match an unquoted reference.
    Settings settings = new Settings()
        .withRenderQuotedNames(RenderQuotedNames.NEVER)
        .withRenderSchema(false)
        .withExecuteLogging(false);
    this.dsl = DSL.using(dataSource, dialect, settings);
    this.clock = clock;
  }

  /** Applies {@code sql/schema.sql}; every statement in it is idempotent. */
  public void createSchemaIfMissing() {
    // Comments go first, so a semicolon inside one never splits a statement.
    String script = stripComments(readSchema());
    guard("create schema", () -> {
      for (String statement : script.split(";")) {
        String sql = statement.strip();
        if (!sql.isBlank()) {
          dsl.execute(sql);
        }
      }
      return null;
    });
  }

  @Override
  public TagRecord createTag(String bizTag, long maxId, int step, String description) {
    long now = clock.millis();
    try {
      return guard("create tag " + bizTag, () -> {
        dsl.insertInto(LEAF_ALLOC)
            .set(LEAF_ALLOC.BIZ_TAG, bizTag)
            .set(LEAF_ALLOC.MAX_ID, maxId)
            .set(LEAF_ALLOC.STEP, step)
            .set(LEAF_ALLOC.DESCRIPTION, description)
            .set(LEAF_ALLOC.UPDATE_TIME, now)
            .execute();
        return new TagRecord(bizTag, maxId, step, description, now);
      });
    } catch (DuplicateKey e) {
      throw new TagAlreadyExistsException(bizTag);
    }
  }

  @Override
  public Optional<TagRecord> getTag(String bizTag) {
    return guard("read tag " + bizTag, () -> dsl.selectFrom(LEAF_ALLOC)
        .where(LEAF_ALLOC.BIZ_TAG.eq(bizTag))
        .fetchOptional()
        .map(JooqSegmentStore::toTag));
  }

  @Override
  public TagRecord updateStep(String bizTag, int step) {
    long now = clock.millis();
    return guard("update step of " + bizTag, () -> dsl.transactionResult(cfg -> {
      DSLContext tx = cfg.dsl();
      int updated = tx.update(LEAF_ALLOC)
          .set(LEAF_ALLOC.STEP, step)
          .set(LEAF_ALLOC.UPDATE_TIME, now)
          .where(LEAF_ALLOC.BIZ_TAG.eq(bizTag))
          .execute();
      if (updated == 0) {
        throw new TagNotFoundException(bizTag);
      }
      return toTag(tx.selectFrom(LEAF_ALLOC).where(LEAF_ALLOC.BIZ_TAG.eq(bizTag)).fetchSingle());
    }));
  }

  @Override
  public TagPage listTags(String afterBizTag, int limit) {
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be positive: " + limit);
    }
    Condition after = afterBizTag == null ? DSL.noCondition() : LEAF_ALLOC.BIZ_TAG.gt(afterBizTag);
    List<TagRecord> rows = guard("list tags", () -> dsl.selectFrom(LEAF_ALLOC)
        .where(after)
        .orderBy(LEAF_ALLOC.BIZ_TAG)
        .limit(limit + 1)
        .fetch(JooqSegmentStore::toTag));
    boolean hasMore = rows.size() > limit;
    return new TagPage(hasMore ? List.copyOf(rows.subList(0, limit)) : rows, hasMore);
  }

  @Override
  public SegmentRange nextSegment(String bizTag, int step) {
    if (step < 0) {
      throw new IllegalArgumentException("step must be positive or TABLE_STEP: " + step);
    }
    long now = clock.millis();
    Field<Long> added =
        step == TABLE_STEP ? LEAF_ALLOC.STEP.coerce(Long.class) : DSL.val((long) step);
    return guard("take a segment of " + bizTag, () -> dsl.transactionResult(cfg -> {
      DSLContext tx = cfg.dsl();
      // The guard on max_id keeps the addition inside BIGINT: nothing is taken, nothing wraps.
      int updated = tx.update(LEAF_ALLOC)
          .set(LEAF_ALLOC.MAX_ID, LEAF_ALLOC.MAX_ID.plus(added))
          .set(LEAF_ALLOC.UPDATE_TIME, now)
          .where(LEAF_ALLOC.BIZ_TAG.eq(bizTag))
          .and(added.gt(0L))
          .and(LEAF_ALLOC.MAX_ID.le(DSL.val(Long.MAX_VALUE).minus(added)))
          .execute();
      Record2<Long, Integer> row = tx.select(LEAF_ALLOC.MAX_ID, LEAF_ALLOC.STEP)
          .from(LEAF_ALLOC)
          .where(LEAF_ALLOC.BIZ_TAG.eq(bizTag))
          .fetchOne();
      if (row == null) {
        throw new TagNotFoundException(bizTag);
      }
      long maxId = row.value1();
      int tableStep = row.value2();
      int used = step == TABLE_STEP ? tableStep : step;
      if (updated == 0) {
        if (used <= 0) {
          throw new InvalidTagStateException("biz_tag " + bizTag + " has step " + used
              + " in leaf_alloc; set a positive step with UpdateStep");
        }
        throw new IdOverflowException(bizTag, maxId, used);
      }
      return new SegmentRange(maxId - used, maxId, used, tableStep);
    }));
  }

  @Override
  public void ping() {
    guard("ping", () -> dsl.selectOne().fetch());
  }

  private static TagRecord toTag(LeafAllocRecord r) {
    return new TagRecord(r.getBizTag(), r.getMaxId(), r.getStep(), r.getDescription(),
        r.getUpdateTime());
  }

  /**
   * Runs {@code work}, turning database failures into this package's exceptions. Our own
   * exceptions thrown inside a transaction pass through unchanged (jOOQ rolls back and rethrows).
   */
  private static <T> T guard(String what, Supplier<T> work) {
    try {
      return work.get();
    } catch (IntegrityConstraintViolationException e) {
      throw new DuplicateKey(e);
    } catch (DataAccessException e) {
      Throwable root = rootCause(e);
      throw new StoreUnavailableException(
          "database unavailable: could not " + what + ": " + root.getMessage(), e);
    }
  }

  private static Throwable rootCause(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    return c;
  }

  private static String readSchema() {
    try (InputStream in = JooqSegmentStore.class.getResourceAsStream(SCHEMA_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(SCHEMA_RESOURCE + " is missing from the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String stripComments(String statement) {
    StringBuilder sql = new StringBuilder();
    for (String line : statement.split("\n")) {
      if (!line.strip().startsWith("--")) {
        sql.append(line).append('\n');
      }
    }
    return sql.toString().strip();
  }

  /** A unique-key violation, told apart from other failures only inside this class. */
  private static final class DuplicateKey extends RuntimeException {
    DuplicateKey(Throwable cause) {
      super(cause);
    }
  }
}
