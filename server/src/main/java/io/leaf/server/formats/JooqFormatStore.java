package io.leaf.server.formats;

import static io.leaf.server.store.generated.Tables.LEAF_FORMAT;

import io.leaf.server.store.DatabaseErrors;
import io.leaf.server.store.OwnTable;
import io.leaf.server.store.StoreRejectedException;
import io.leaf.server.store.generated.tables.records.LeafFormatRecord;
import java.time.InstantSource;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.exception.DataAccessException;

/**
 * {@link FormatStore} on the {@code leaf_format} table, created when missing: a version is one
 * insert under the primary key (tag, version), so two racing changes of one tag cannot both be
 * stored.
 *
 * <p>The table is defined in {@code sql/schema.sql}, PostgreSQL's in {@code
 * sql/schema-postgresql.sql}. Needs SELECT and INSERT on the table once it exists.
 *
 * <p>Thread-safe; each method uses one pooled connection.
 */
public final class JooqFormatStore implements FormatStore {

  private static final String TABLE = "leaf_format";

  private final DSLContext dsl;
  private final InstantSource clock;
  private final OwnTable table;

  public JooqFormatStore(DataSource dataSource, SQLDialect dialect, InstantSource clock) {
    this.dsl = OwnTable.dsl(dataSource, dialect);
    this.table = new OwnTable(dsl, TABLE);
    this.clock = clock;
  }

  @Override
  public void createSchemaIfMissing() {
    table.create();
  }

  /**
   * {@link #createSchemaIfMissing}, a refusal logged instead of thrown: IDs do not need formats, so
   * a user without CREATE serves them, and formatted calls answer with this reason until a DBA
   * creates {@code leaf_format} ({@code sql/schema.sql}).
   */
  public void createSchemaIfAllowed() {
    try {
      createSchemaIfMissing();
    } catch (StoreRejectedException e) {
      org.slf4j.LoggerFactory.getLogger(JooqFormatStore.class)
          .warn("formatted IDs unavailable: {}", e.getMessage());
    }
  }

  @Override
  public List<StoredFormat> history(String bizTag) {
    table.ensure();
    return guard(
        "read the formats of tag " + bizTag,
        () ->
            dsl.selectFrom(LEAF_FORMAT)
                .where(LEAF_FORMAT.BIZ_TAG.eq(bizTag))
                .orderBy(LEAF_FORMAT.VERSION)
                .fetch(r -> stored(r)));
  }

  @Override
  public Map<String, StoredFormat> current(Collection<String> bizTags) {
    Map<String, StoredFormat> out = new HashMap<>();
    if (bizTags.isEmpty()) {
      return out;
    }
    table.ensure();
    // Every version of these tags, oldest first: the last one seen of a tag is its current one.
    guard(
        "read the formats of " + bizTags.size() + " tags",
        () ->
            dsl.selectFrom(LEAF_FORMAT)
                .where(LEAF_FORMAT.BIZ_TAG.in(bizTags))
                .orderBy(LEAF_FORMAT.BIZ_TAG, LEAF_FORMAT.VERSION)
                .fetch(r -> out.put(r.getBizTag(), stored(r))));
    return out;
  }

  @Override
  public StoredFormat add(StoredFormat format) {
    table.ensure();
    StoredFormat stored =
        new StoredFormat(
            format.bizTag(),
            format.version(),
            format.definition(),
            format.keyFingerprint(),
            clock.millis());
    try {
      guard(
          "store the format of tag " + format.bizTag(),
          () ->
              dsl.insertInto(LEAF_FORMAT)
                  .set(LEAF_FORMAT.BIZ_TAG, stored.bizTag())
                  .set(LEAF_FORMAT.VERSION, stored.version())
                  .set(LEAF_FORMAT.PATTERN, stored.pattern())
                  .set(LEAF_FORMAT.RESET_PERIOD, stored.reset())
                  .set(LEAF_FORMAT.TIME_ZONE, stored.timeZone())
                  .set(LEAF_FORMAT.KEY_FINGERPRINT, stored.keyFingerprint())
                  .set(LEAF_FORMAT.UPDATE_TIME, stored.updateTime())
                  .execute());
    } catch (DatabaseErrors.DuplicateKey e) {
      throw new FormatVersionTakenException(format.bizTag(), format.version());
    }
    return stored;
  }

  private static StoredFormat stored(LeafFormatRecord r) {
    return new StoredFormat(
        r.getBizTag(),
        r.getVersion(),
        new FormatDefinition(r.getPattern(), r.getResetPeriod(), r.getTimeZone()),
        r.getKeyFingerprint(),
        r.getUpdateTime());
  }

  private static <T> T guard(String what, Supplier<T> work) {
    try {
      return work.get();
    } catch (DataAccessException e) {
      throw DatabaseErrors.toStoreException(what, e, 1);
    }
  }
}
