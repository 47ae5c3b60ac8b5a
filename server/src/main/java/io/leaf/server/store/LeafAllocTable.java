package io.leaf.server.store;

import static io.leaf.server.store.generated.Tables.LEAF_ALLOC;

import io.leaf.server.db.DatabaseProduct;
import io.leaf.server.db.Dialect;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jooq.Constants;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Record5;
import org.jooq.SelectJoinStep;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code leaf_alloc} table as this database holds it, read once from the JDBC metadata.
 * Immutable and thread-safe.
 *
 * <p>The table is Leaf's own ({@code sql/schema.sql}: an {@code id} column, {@code update_time
 * BIGINT} epoch millis), Meituan Leaf's ({@code biz_tag} primary key, no {@code id}, {@code
 * update_time TIMESTAMP}), or any table with the five columns Leaf uses in types it can use.
 *
 * <p>Statements name these five columns and never select {@code *}, so other columns such as {@code
 * id} are never read. {@code update_time} is written as the column wants: Leaf's clock in epoch
 * millis into a BIGINT, the database's {@code CURRENT_TIMESTAMP} into a TIMESTAMP or DATETIME (what
 * {@code ON UPDATE CURRENT_TIMESTAMP} would write). It is read back as epoch millis either way, a
 * TIMESTAMP converted by the database in the session time zone that wrote it.
 */
final class LeafAllocTable {

  private static final Logger log = LoggerFactory.getLogger(LeafAllocTable.class);

  /** How {@code update_time} holds time. */
  enum UpdateTime {
    /** An integer column of epoch milliseconds, written from Leaf's clock. */
    EPOCH_MILLIS,
    /** A TIMESTAMP or DATETIME column, written from the database's clock. */
    DATABASE_CLOCK
  }

  private static final Set<Integer> TEXT =
      Set.of(
          Types.CHAR,
          Types.VARCHAR,
          Types.LONGVARCHAR,
          Types.NCHAR,
          Types.NVARCHAR,
          Types.LONGNVARCHAR,
          Types.CLOB,
          Types.NCLOB);
  private static final Set<Integer> INTEGER =
      Set.of(Types.TINYINT, Types.SMALLINT, Types.INTEGER, Types.BIGINT);

  /** The columns Leaf uses, in order, with the types each may have and how to say so. */
  private static final Map<String, Need> NEEDED = new LinkedHashMap<>();

  static {
    NEEDED.put("biz_tag", new Need(TEXT, "a character type (VARCHAR)"));
    NEEDED.put("max_id", new Need(Set.of(Types.BIGINT), "BIGINT"));
    NEEDED.put("step", new Need(INTEGER, "an integer type (INT)"));
    NEEDED.put("description", new Need(TEXT, "a character type (VARCHAR)"));
    NEEDED.put(
        "update_time",
        new Need(
            Set.of(Types.BIGINT, Types.TIMESTAMP, Types.TIMESTAMP_WITH_TIMEZONE),
            "BIGINT (epoch millis) or TIMESTAMP/DATETIME"));
  }

  private record Need(Set<Integer> types, String description) {}

  /** Types whose metadata length is the most characters the column holds. */
  private static final Set<Integer> SIZED_TEXT =
      Set.of(Types.CHAR, Types.VARCHAR, Types.NCHAR, Types.NVARCHAR);

  private final UpdateTime updateTime;
  private final String updateTimeType;
  private final BizTagColumn bizTag;
  private final Field<Long> updateTimeMillis;
  private final DatabaseProduct product;

  private LeafAllocTable(
      UpdateTime updateTime, String updateTimeType, BizTagColumn bizTag, DatabaseProduct product) {
    this.product = product;
    Dialect dialect = product.rules();
    this.updateTime = updateTime;
    this.updateTimeType = updateTimeType;
    this.bizTag = bizTag;
    Field<Long> millis =
        updateTime == UpdateTime.EPOCH_MILLIS
            ? LEAF_ALLOC.UPDATE_TIME
            : dialect.epochMillis(LEAF_ALLOC.UPDATE_TIME);
    // A nullable update_time (some Meituan tables have one) reads as 0, never as a null long.
    this.updateTimeMillis = DSL.coalesce(millis, DSL.inline(0L)).as("update_time_millis");
  }

  /**
   * The table as the metadata describes it, or empty when the database has no {@code leaf_alloc}
   * under the name an unquoted {@code leaf_alloc} refers to (H2 folds it to upper case).
   *
   * @throws UnusableTableException the table lacks a column, holds one in an unusable type, does
   *     not keep {@code biz_tag} unique, or has another column Leaf's inserts cannot leave out
   */
  static Optional<LeafAllocTable> read(DatabaseMetaData md, DatabaseProduct product)
      throws SQLException {
    String table = md.storesUpperCaseIdentifiers() ? "LEAF_ALLOC" : "leaf_alloc";
    Connection c = md.getConnection();
    String catalog = c.getCatalog();
    String schema = c.getSchema();
    String pattern = table.replace("_", md.getSearchStringEscape() + "_");
    Map<String, Column> columns = new LinkedHashMap<>();
    try (ResultSet rs = md.getColumns(catalog, schema, pattern, "%")) {
      while (rs.next()) {
        if (rs.getString("TABLE_NAME").equals(table)) {
          columns.put(rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT), new Column(rs));
        }
      }
    }
    if (columns.isEmpty()) {
      return Optional.empty();
    }
    for (Map.Entry<String, Need> need : NEEDED.entrySet()) {
      Column column = columns.get(need.getKey());
      if (column == null) {
        throw unusable(
            "has no column "
                + need.getKey()
                + "; Leaf needs "
                + String.join(", ", NEEDED.keySet()));
      }
      if (!need.getValue().types().contains(column.type)) {
        throw unusable(
            "column "
                + need.getKey()
                + " has type "
                + column.typeName
                + "; Leaf needs "
                + need.getValue().description());
      }
    }
    for (Map.Entry<String, Column> other : columns.entrySet()) {
      if (!NEEDED.containsKey(other.getKey()) && other.getValue().mustBeGiven()) {
        throw unusable(
            "column "
                + other.getKey()
                + " is NOT NULL without a default; Leaf's"
                + " inserts set only "
                + String.join(", ", NEEDED.keySet()));
      }
    }
    if (!BizTagColumn.isUnique(md, catalog, schema, table)) {
      throw unusable(
          "column biz_tag is neither the primary key nor unique; Leaf needs one row" + " per tag");
    }
    Column time = columns.get("update_time");
    Column tag = columns.get("biz_tag");
    BizTagColumn bizTag =
        new BizTagColumn(
            tag.typeName,
            BizTagColumn.isAscii(c, catalog, table, product.dialect()),
            SIZED_TEXT.contains(tag.type) && tag.size > 0 ? tag.size : BizTagColumn.UNBOUNDED);
    return Optional.of(
        new LeafAllocTable(
            time.type == Types.BIGINT ? UpdateTime.EPOCH_MILLIS : UpdateTime.DATABASE_CLOCK,
            time.typeName,
            bizTag,
            product));
  }

  /**
   * Finds {@code leaf_alloc} on {@code c} (creating Leaf's tables when it is missing), reads its
   * shape and logs it, with the product behind {@code c}. Whether it exists is read from the JDBC
   * metadata, so a user without CREATE can run a server on a table a DBA created (a {@code CREATE
   * TABLE IF NOT EXISTS} is refused to such a user even when the table exists).
   *
   * @param dsl the statements' settings, on the URL's dialect
   * @throws UnusableTableException the table exists but Leaf cannot use it
   */
  static LeafAllocTable open(Connection c, DSLContext dsl) throws SQLException {
    DatabaseMetaData md = c.getMetaData();
    DatabaseProduct product = DatabaseProduct.of(md, dsl.dialect());
    Optional<LeafAllocTable> table = read(md, product);
    if (table.isEmpty()) {
      OwnTable.createSchema(DSL.using(c, product.dialect(), dsl.settings()), product.rules());
      table = read(md, product);
    }
    LeafAllocTable found =
        table.orElseThrow(
            () ->
                new UnusableTableException(
                    "table leaf_alloc was created but the database's metadata does not show it"));
    log.info("leaf_alloc on {}: {}", product, found.describe());
    if (!product.dialectSupportsVersion()) {
      // jOOQ's own warning is off (logback.xml): it reads MariaDB 10 as 5.5 through Connector/J.
      log.warn(
          "jOOQ {} does not list {} {} among the versions its dialect supports",
          Constants.VERSION,
          product.name(),
          product.version());
    }
    return found;
  }

  /** The product this table was read on. */
  DatabaseProduct product() {
    return product;
  }

  /** What {@code biz_tag} can hold: a name it cannot is no row's name. */
  BizTagColumn bizTag() {
    return bizTag;
  }

  /**
   * For the log: what this table's {@code biz_tag} holds and how its {@code update_time} is kept.
   */
  String describe() {
    return bizTag.describe()
        + ", update_time "
        + updateTimeType
        + (updateTime == UpdateTime.EPOCH_MILLIS
            ? " (epoch millis, Leaf's clock)"
            : " (the database's clock)");
  }

  /** {@code SELECT} of the five columns, {@code update_time} as epoch millis. */
  SelectJoinStep<Record5<String, Long, Integer, String, Long>> select(DSLContext db) {
    return db.select(
            LEAF_ALLOC.BIZ_TAG,
            LEAF_ALLOC.MAX_ID,
            LEAF_ALLOC.STEP,
            LEAF_ALLOC.DESCRIPTION,
            updateTimeMillis)
        .from(LEAF_ALLOC);
  }

  /**
   * The row as the API reports it. A table whose {@code max_id} or {@code step} allows NULL may
   * hold one; it reads as 0 (as a NULL {@code update_time} does), so GetTag and ListTags still show
   * the row, and taking a segment of it is refused with the reason (FAILED_PRECONDITION).
   */
  TagRecord toTag(Record r) {
    Long maxId = r.get(LEAF_ALLOC.MAX_ID);
    Integer step = r.get(LEAF_ALLOC.STEP);
    return new TagRecord(
        r.get(LEAF_ALLOC.BIZ_TAG),
        maxId == null ? 0 : maxId,
        step == null ? 0 : step,
        r.get(LEAF_ALLOC.DESCRIPTION),
        r.get(updateTimeMillis));
  }

  /** The value to set {@code update_time} to in a write at {@code nowMillis} (Leaf's clock). */
  Field<Long> updateTimeAt(long nowMillis) {
    return updateTime == UpdateTime.EPOCH_MILLIS
        ? DSL.val(nowMillis)
        : DSL.field("CURRENT_TIMESTAMP", Long.class);
  }

  private static UnusableTableException unusable(String what) {
    return new UnusableTableException(
        "table leaf_alloc" + (what.startsWith("column") ? ": " : " ") + what);
  }

  /** One column of {@link DatabaseMetaData#getColumns}. */
  /** Inserts a row at {@code nowMillis}; a taken name fails on the unique key. */
  void insert(DSLContext tx, String bizTag, long maxId, int step, String description, long now) {
    tx.insertInto(LEAF_ALLOC)
        .set(LEAF_ALLOC.BIZ_TAG, bizTag)
        .set(LEAF_ALLOC.MAX_ID, maxId)
        .set(LEAF_ALLOC.STEP, step)
        .set(LEAF_ALLOC.DESCRIPTION, description)
        .set(LEAF_ALLOC.UPDATE_TIME, updateTimeAt(now))
        .execute();
  }

  /** Sets the row's step at {@code nowMillis}; false when there is no such row. */
  boolean setStep(DSLContext tx, String bizTag, int step, long nowMillis) {
    return tx.update(LEAF_ALLOC)
            .set(LEAF_ALLOC.STEP, step)
            .set(LEAF_ALLOC.UPDATE_TIME, updateTimeAt(nowMillis))
            .where(LEAF_ALLOC.BIZ_TAG.eq(bizTag))
            .execute()
        > 0;
  }

  /**
   * In the caller's transaction: sets {@code max_id} back to {@code first} if it still is {@code
   * end}; true when it was (the caller then records the hand-back), false when another take moved
   * it (nothing changed).
   */
  boolean setBack(DSLContext tx, String bizTag, long first, long end, long nowMillis) {
    return tx.update(LEAF_ALLOC)
            .set(LEAF_ALLOC.MAX_ID, first)
            .set(LEAF_ALLOC.UPDATE_TIME, updateTimeAt(nowMillis))
            .where(LEAF_ALLOC.BIZ_TAG.eq(bizTag))
            .and(LEAF_ALLOC.MAX_ID.eq(end))
            .execute()
        == 1;
  }

  private static final class Column {
    final int type;
    final String typeName;

    /** COLUMN_SIZE: characters of a character column. */
    final int size;

    final boolean notNull;
    final boolean hasDefault;
    final boolean generated;

    Column(ResultSet rs) throws SQLException {
      type = rs.getInt("DATA_TYPE");
      typeName = rs.getString("TYPE_NAME");
      size = rs.getInt("COLUMN_SIZE");
      notNull = rs.getInt("NULLABLE") == DatabaseMetaData.columnNoNulls;
      hasDefault = rs.getString("COLUMN_DEF") != null;
      generated =
          "YES".equals(rs.getString("IS_AUTOINCREMENT"))
              || "YES".equals(rs.getString("IS_GENERATEDCOLUMN"));
    }

    /** Whether an INSERT that leaves this column out fails. */
    boolean mustBeGiven() {
      return notNull && !hasDefault && !generated;
    }
  }
}
