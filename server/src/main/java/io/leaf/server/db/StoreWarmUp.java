package io.leaf.server.db;

import static io.leaf.server.store.generated.Tables.LEAF_ALLOC;
import static io.leaf.server.store.generated.Tables.LEAF_LEDGER;

import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * Loads the classes the first database check needs (jOOQ's query model and renderer, the generated
 * tables, the JDBC driver) without touching any database, so that a thread of its own can do it
 * while the server parses its flags, sets up logging and binds its port.
 */
public final class StoreWarmUp {

  /*
   * Measured on the embedded H2 (P12, docs/benchmarks.md): jOOQ's first query loads about a
   * thousand classes, a third of the classes a start loads, on the path from launch to the
   * first check. Rendering statements of the same shapes the store runs here loads most of them
   * while the main thread is busy with other classes; nothing here connects anywhere.
   */

  private StoreWarmUp() {}

  /** Renders, never runs, statements like the store's for the dialect of {@code url}. */
  public static void run(String url) {
    try {
      SQLDialect dialect = Dialect.ofUrl(url);
      DSLContext dsl = DSL.using(dialect);
      dsl.select(LEAF_ALLOC.BIZ_TAG, LEAF_ALLOC.MAX_ID, LEAF_ALLOC.STEP)
          .from(LEAF_ALLOC)
          .where(LEAF_ALLOC.BIZ_TAG.eq(""))
          .getSQL();
      dsl.update(LEAF_ALLOC)
          .set(LEAF_ALLOC.MAX_ID, LEAF_ALLOC.MAX_ID.plus(1))
          .where(LEAF_ALLOC.BIZ_TAG.eq(""))
          .getSQL();
      dsl.insertInto(LEAF_LEDGER)
          .set(LEAF_LEDGER.BIZ_TAG, "")
          .set(LEAF_LEDGER.START_ID, 0L)
          .getSQL();
      dsl.selectOne().getSQL();
      Class.forName(driver(url));
    } catch (ClassNotFoundException | RuntimeException e) {
      // Only a head start: the real check loads whatever is missing and reports what fails.
    }
  }

  private static String driver(String url) {
    if (url.startsWith("jdbc:postgresql:")) {
      return "org.postgresql.Driver";
    }
    return H2Url.isH2(url) ? "org.h2.Driver" : "com.mysql.cj.jdbc.Driver";
  }
}
