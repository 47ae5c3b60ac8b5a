package io.leaf.server.store;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.RenderQuotedNames;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;

/**
 * Leaf's own tables beside {@code leaf_alloc}: whether one exists, read from the JDBC metadata, and
 * its creation from the schema file of the database's product.
 *
 * <p>The tables are {@code leaf_worker}, {@code leaf_format}, {@code leaf_region}, {@code
 * leaf_ledger} and {@code leaf_tag_lease}. Existence is read from the metadata so a user without
 * CREATE can use a table a DBA made.
 */
public final class OwnTables {

  private OwnTables() {}

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
    String statement =
        product.isPostgres() ? statementOf("/sql/schema-postgresql.sql", table) : null;
    if (statement == null) {
      statement = statementOf("/sql/schema.sql", table);
    }
    if (statement == null) {
      throw new IllegalStateException("no CREATE TABLE " + table + " in the schema files");
    }
    DSLContext db = DSL.using(c, product.dialect(), settingsOf.settings());
    db.execute(statement);
    for (String index :
        indexesOf(product.isPostgres() ? "/sql/schema-postgresql.sql" : "/sql/schema.sql", table)) {
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
  private static java.util.List<String> indexesOf(String resource, String table) {
    String schema = LeafAllocTable.stripComments(LeafAllocTable.readSchema(resource));
    java.util.List<String> out = new java.util.ArrayList<>();
    for (String statement : schema.split(";")) {
      String s = statement.strip();
      if (s.startsWith("CREATE INDEX") && s.contains(" ON " + table + " (")) {
        out.add(s);
      }
    }
    return out;
  }

  private static String statementOf(String resource, String table) {
    String schema = LeafAllocTable.stripComments(LeafAllocTable.readSchema(resource));
    for (String statement : schema.split(";")) {
      if (statement.contains("TABLE IF NOT EXISTS " + table + " ")) {
        return statement.strip();
      }
    }
    return null;
  }
}
