package io.leaf.server.store;

import static io.leaf.server.store.generated.Tables.LEAF_ALLOC;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Record5;
import org.jooq.SQLDialect;
import org.jooq.SelectJoinStep;
import org.jooq.impl.DSL;

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

  private static final String SCHEMA_RESOURCE = "/sql/schema.sql";
  private static final String POSTGRES_SCHEMA_RESOURCE = "/sql/schema-postgresql.sql";

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

  private LeafAllocTable(
      UpdateTime updateTime, String updateTimeType, BizTagColumn bizTag, SQLDialect dialect) {
    this.updateTime = updateTime;
    this.updateTimeType = updateTimeType;
    this.bizTag = bizTag;
    Field<Long> millis =
        updateTime == UpdateTime.EPOCH_MILLIS
            ? LEAF_ALLOC.UPDATE_TIME
            : dialect.family() == SQLDialect.H2 || dialect.family() == SQLDialect.POSTGRES
                // H2's UNIX_TIMESTAMP keeps whole seconds and its INTEGER result overflows when
                // multiplied (PostgreSQL has none); a TIMESTAMP cast to WITH TIME ZONE takes the
                // session's zone, as MySQL's UNIX_TIMESTAMP does.
                ? DSL.field(
                    "CAST(EXTRACT(EPOCH FROM CAST({0} AS TIMESTAMP WITH TIME ZONE)) * 1000"
                        + " AS BIGINT)",
                    Long.class, LEAF_ALLOC.UPDATE_TIME)
                : DSL.field(
                    "CAST(UNIX_TIMESTAMP({0}) * 1000 AS SIGNED)",
                    Long.class, LEAF_ALLOC.UPDATE_TIME);
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
  static Optional<LeafAllocTable> read(DatabaseMetaData md, SQLDialect dialect)
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
    if (!bizTagIsUnique(md, catalog, schema, table)) {
      throw unusable(
          "column biz_tag is neither the primary key nor unique; Leaf needs one row" + " per tag");
    }
    Column time = columns.get("update_time");
    Column tag = columns.get("biz_tag");
    BizTagColumn bizTag =
        new BizTagColumn(
            tag.typeName,
            isAscii(c, catalog, table, dialect),
            SIZED_TEXT.contains(tag.type) && tag.size > 0 ? tag.size : BizTagColumn.UNBOUNDED);
    return Optional.of(
        new LeafAllocTable(
            time.type == Types.BIGINT ? UpdateTime.EPOCH_MILLIS : UpdateTime.DATABASE_CLOCK,
            time.typeName,
            bizTag,
            dialect));
  }

  /**
   * Whether {@code biz_tag}'s character set is ASCII: on MySQL/MariaDB as {@code
   * information_schema} says (Leaf's own table is {@code CHARACTER SET ascii} there); never on
   * PostgreSQL and H2, whose columns take the database's Unicode as they are. A schema that cannot
   * be read says no: every name is then looked up.
   */
  private static boolean isAscii(Connection c, String catalog, String table, SQLDialect dialect) {
    if (dialect.family() != SQLDialect.MYSQL && dialect.family() != SQLDialect.MARIADB) {
      return false;
    }
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT CHARACTER_SET_NAME FROM"
                + " information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?"
                + " AND COLUMN_NAME = 'biz_tag'")) {
      s.setString(1, catalog);
      s.setString(2, table);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() && "ascii".equalsIgnoreCase(rs.getString(1));
      }
    } catch (SQLException e) {
      return false;
    }
  }

  /** What {@code biz_tag} can hold: a name it cannot is no row's name. */
  BizTagColumn bizTag() {
    return bizTag;
  }

  /** The schema's description column, sized in characters as utf8mb4 counts them. */
  static final String DESCRIPTION_COLUMN = "VARCHAR(256) CHARACTER SET utf8mb4";

  /**
   * H2 counts a column's length in UTF-16 units, so 256 characters outside the Basic Multilingual
   * Plane take 512; the API's own check keeps descriptions to 256 code points on both databases.
   */
  static final String H2_DESCRIPTION_COLUMN = "VARCHAR(512)";

  /**
   * Creates the table Leaf's own way: {@code sql/schema.sql}, or on PostgreSQL its variant {@code
   * sql/schema-postgresql.sql} (same columns).
   */
  static void create(DSLContext db, DatabaseProduct product) {
    String schema =
        stripComments(
            readSchema(product.isPostgres() ? POSTGRES_SCHEMA_RESOURCE : SCHEMA_RESOURCE));
    if (db.dialect().family() == SQLDialect.H2) {
      schema = schema.replace(DESCRIPTION_COLUMN, H2_DESCRIPTION_COLUMN);
    }
    // Comments go first, so a semicolon inside one never splits a statement.
    for (String statement : schema.split(";")) {
      if (statement.strip().startsWith("CREATE INDEX")) {
        OwnTables.createIndex(db, statement.strip());
      } else if (!statement.isBlank()) {
        db.execute(statement.strip());
      }
    }
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

  private static boolean bizTagIsUnique(
      DatabaseMetaData md, String catalog, String schema, String table) throws SQLException {
    Map<String, List<String>> uniqueIndexes = new LinkedHashMap<>();
    try (ResultSet rs = md.getIndexInfo(catalog, schema, table, true, true)) {
      while (rs.next()) {
        String column = rs.getString("COLUMN_NAME");
        if (rs.getShort("TYPE") != DatabaseMetaData.tableIndexStatistic && column != null) {
          uniqueIndexes
              .computeIfAbsent(rs.getString("INDEX_NAME"), k -> new ArrayList<>())
              .add(column.toLowerCase(Locale.ROOT));
        }
      }
    }
    return uniqueIndexes.containsValue(List.of("biz_tag"));
  }

  /** The text of {@code sql/schema.sql}. */
  static String readSchema() {
    return readSchema(SCHEMA_RESOURCE);
  }

  static String readSchema(String resource) {
    try (InputStream in = JooqSegmentStore.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is missing from the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code statement} without its {@code --} comment lines. */
  static String stripComments(String statement) {
    StringBuilder sql = new StringBuilder();
    for (String line : statement.split("\n")) {
      if (!line.strip().startsWith("--")) {
        sql.append(line).append('\n');
      }
    }
    return sql.toString().strip();
  }

  private static UnusableTableException unusable(String what) {
    return new UnusableTableException(
        "table leaf_alloc" + (what.startsWith("column") ? ": " : " ") + what);
  }

  /** One column of {@link DatabaseMetaData#getColumns}. */
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
