package io.leaf.server.store;

import io.leaf.server.db.DatabaseProduct;
import io.leaf.server.db.Dialect;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.RenderQuotedNames;
import org.jooq.conf.Settings;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One of Leaf's own tables as its store uses it: created from the product's schema file when
 * missing on first use (or at start), then known to exist for the store's life.
 *
 * <p>Thread-safe: two first uses side by side may both check; {@link #createIfMissing} creates with
 * {@code IF NOT EXISTS}. Whether a table exists is read from the JDBC metadata, so a user without
 * CREATE can use a table a DBA made.
 */
public final class OwnTable {

  private static final Logger log = LoggerFactory.getLogger(OwnTable.class);

  /** The schema file every product has; {@link Dialect#schemaResource} may name another. */
  static final String SCHEMA_RESOURCE = "/sql/schema.sql";

  private final DSLContext dsl;
  private final String name;
  private volatile boolean checked;

  public OwnTable(DSLContext dsl, String name) {
    this.dsl = dsl;
    this.name = name;
  }

  public String name() {
    return name;
  }

  /**
   * Creates the table when the database lacks it, and logs that it did.
   *
   * @throws StoreUnavailableException the database cannot be reached
   * @throws StoreRejectedException the database refuses (no CREATE privilege, read-only)
   */
  public void create() {
    try {
      dsl.connectionResult(
          c -> {
            if (createIfMissing(c, dsl, name)) {
              log.info("created table {}", name);
            }
            return null;
          });
    } catch (DataAccessException e) {
      throw DatabaseErrors.toStoreException("open " + name, e, 1);
    }
    checked = true;
  }

  /** {@link #create} unless an earlier call of this object found the table. */
  public void ensure() {
    if (!checked) {
      create();
    }
  }

  /**
   * The statements' context every Leaf store uses: unquoted names (the DDL creates unquoted
   * identifiers, which H2 folds to upper case and MySQL keeps as written), no schema, no statement
   * logging.
   */
  public static DSLContext dsl(DataSource dataSource, SQLDialect dialect) {
    return DSL.using(
        dataSource,
        dialect,
        new Settings()
            .withRenderQuotedNames(RenderQuotedNames.NEVER)
            .withRenderSchema(false)
            .withExecuteLogging(false));
  }

  /** Whether {@code table} exists in the connection's catalog and schema. */
  public static boolean exists(DatabaseMetaData md, String table) throws SQLException {
    String name = md.storesUpperCaseIdentifiers() ? table.toUpperCase(Locale.ROOT) : table;
    Connection c = md.getConnection();
    try (ResultSet rs =
        md.getTables(
            c.getCatalog(),
            c.getSchema(),
            name.replace("_", md.getSearchStringEscape() + "_"),
            null)) {
      while (rs.next()) {
        if (rs.getString("TABLE_NAME").equals(name)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Creates {@code table} on {@code c} when missing, from {@code sql/schema-postgresql.sql} on
   * PostgreSQL when it is there, else from {@code sql/schema.sql}.
   *
   * @return true when this call created it
   * @throws UnusableTableException the database's metadata does not show it after the create
   */
  public static boolean createIfMissing(Connection c, DSLContext settingsOf, String table)
      throws SQLException {
    DatabaseMetaData md = c.getMetaData();
    if (exists(md, table)) {
      return false;
    }
    DatabaseProduct product = DatabaseProduct.of(md, settingsOf.dialect());
    String statement = statementOf(product.rules().schemaResource(), table);
    if (statement == null) {
      statement = statementOf(SCHEMA_RESOURCE, table);
    }
    if (statement == null) {
      throw new IllegalStateException("no CREATE TABLE " + table + " in the schema files");
    }
    DSLContext db = DSL.using(c, product.dialect(), settingsOf.settings());
    db.execute(statement);
    for (String index : indexesOf(product.rules().schemaResource(), table)) {
      createIndex(db, index);
    }
    if (!exists(md, table)) {
      throw new UnusableTableException(
          "table " + table + " was created but the database's" + " metadata does not show it");
    }
    return true;
  }

  /**
   * Runs {@code statement}, a {@code CREATE INDEX name ON table (…)}, on {@code db}; a failure is
   * ignored when the index exists afterwards (a server starting beside this one made it: MySQL has
   * no {@code CREATE INDEX IF NOT EXISTS}).
   */
  public static void createIndex(DSLContext db, String statement) {
    try {
      db.execute(statement);
    } catch (org.jooq.exception.DataAccessException e) {
      String[] words = statement.split("\\s+");
      String index = words[2];
      String table = words[4];
      boolean exists =
          db.connectionResult(
              c -> {
                DatabaseMetaData md = c.getMetaData();
                String t = md.storesUpperCaseIdentifiers() ? table.toUpperCase(Locale.ROOT) : table;
                try (ResultSet rs =
                    md.getIndexInfo(c.getCatalog(), c.getSchema(), t, false, true)) {
                  while (rs.next()) {
                    if (index.equalsIgnoreCase(rs.getString("INDEX_NAME"))) {
                      return true;
                    }
                  }
                }
                return false;
              });
      if (!exists) {
        throw e;
      }
    }
  }

  /** The {@code CREATE INDEX … ON table} statements of {@code resource} (PostgreSQL's file). */
  private static List<String> indexesOf(String resource, String table) {
    String schema = stripComments(readSchema(resource));
    List<String> out = new ArrayList<>();
    for (String statement : schema.split(";")) {
      String s = statement.strip();
      if (s.startsWith("CREATE INDEX") && s.contains(" ON " + table + " (")) {
        out.add(s);
      }
    }
    return out;
  }

  private static String statementOf(String resource, String table) {
    String schema = stripComments(readSchema(resource));
    for (String statement : schema.split(";")) {
      if (statement.contains("TABLE IF NOT EXISTS " + table + " ")) {
        return statement.strip();
      }
    }
    return null;
  }

  /**
   * Creates Leaf's tables its own way, each {@code IF NOT EXISTS}: {@code sql/schema.sql}, or the
   * product's own file ({@link Dialect#schemaResource}: same columns), as the product takes it.
   */
  static void createSchema(DSLContext db, Dialect dialect) {
    String schema = stripComments(readSchema(dialect.schemaResource()));
    schema = dialect.ddl(schema);
    // Comments go first, so a semicolon inside one never splits a statement.
    for (String statement : schema.split(";")) {
      if (statement.strip().startsWith("CREATE INDEX")) {
        createIndex(db, statement.strip());
      } else if (!statement.isBlank()) {
        db.execute(statement.strip());
      }
    }
  }

  /** The text of {@code sql/schema.sql}. */
  static String readSchema() {
    return readSchema(SCHEMA_RESOURCE);
  }

  static String readSchema(String resource) {
    try (InputStream in = OwnTable.class.getResourceAsStream(resource)) {
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
}
