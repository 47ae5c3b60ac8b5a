package io.leaf.server.db;

import static io.leaf.server.store.generated.Tables.LEAF_ALLOC;

import com.zaxxer.hikari.HikariConfig;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.OptionalLong;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Query;
import org.jooq.Record2;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * What differs between the database products Leaf runs on, one subclass per product: the schema
 * file, the clock expression, the segment take's statement, a locking read, the driver's settings.
 * Stateless and thread-safe; {@link #of} picks the one for a jOOQ dialect.
 */
public abstract sealed class Dialect permits MySqlDialect, PostgresDialect, H2Dialect {

  /*
   * The deliberate differences, each kept here and nowhere else: a take is one UPDATE … RETURNING
   * on PostgreSQL and an UPDATE … LAST_INSERT_ID(expr) elsewhere (read from the UPDATE's own reply
   * on MySQL/MariaDB, from the session on H2, which runs in this process); the fence's read is a
   * locking one on InnoDB (LOCK IN SHARE MODE); H2's URL gets the settings Leaf's guarantees need
   * (H2Url). The error table by product stays in the store's DatabaseErrors, which classifies an
   * error by the driver that raised it rather than by the store's dialect.
   */

  /** MySQL and MariaDB (Galera too). */
  public static final MySqlDialect MYSQL = new MySqlDialect();

  public static final PostgresDialect POSTGRES = new PostgresDialect();
  public static final H2Dialect H2 = new H2Dialect();

  Dialect() {}

  /** The dialect of {@code dialect}'s family: MySQL's for MySQL and MariaDB. */
  public static Dialect of(SQLDialect dialect) {
    return switch (dialect.family()) {
      case POSTGRES -> POSTGRES;
      case H2 -> H2;
      default -> MYSQL;
    };
  }

  /**
   * The jOOQ dialect a URL implies before the database has been asked: MySQL for {@code
   * jdbc:mysql:} (MySQL or MariaDB; the store tells MariaDB apart once connected), PostgreSQL for
   * {@code jdbc:postgresql:}, H2 for {@code jdbc:h2:}. The URL is not checked here.
   */
  public static SQLDialect ofUrl(String url) {
    if (url.startsWith("jdbc:postgresql:")) {
      return SQLDialect.POSTGRES;
    }
    return H2Url.isH2(url) ? SQLDialect.H2 : SQLDialect.MYSQL;
  }

  /** The schema file Leaf's own tables are created from, a classpath resource. */
  public String schemaResource() {
    return "/sql/schema.sql";
  }

  /** {@code statement} of {@link #schemaResource} as this product takes it. */
  public String ddl(String statement) {
    return statement;
  }

  /** {@code CURRENT_TIMESTAMP} in epoch millis: the database's own clock inside a statement. */
  public abstract Field<Long> nowMillis();

  /** A TIMESTAMP or DATETIME column as epoch millis, converted in the session's time zone. */
  public abstract Field<Long> epochMillis(Field<?> timestamp);

  /**
   * {@code select} as a read that sees the latest committed row and waits for a writer in flight,
   * inside a transaction whose snapshot may be older. As it is where every statement reads
   * committed data afresh.
   */
  public String latestRead(String select) {
    return select;
  }

  /** Sets the driver's properties Leaf needs on a pool of this product. */
  public void configure(HikariConfig config) {}

  /**
   * The isolation level, as HikariCP names it, every pooled connection gets: the product's own
   * default, stated so the pool never has to detect it (see DataSources#create).
   */
  public String isolation() {
    return "TRANSACTION_READ_COMMITTED";
  }

  /**
   * Takes a segment: {@code max_id += step} in one statement whose own reply carries the new {@code
   * max_id}, on {@code connection} (autocommit, or the caller's transaction).
   *
   * @param pool the pool {@code connection} came from (a connection that must not be reused is
   *     evicted from it)
   * @return the range moved past; failures are {@code take.rules()}'s or the driver's
   */
  public abstract Taken take(
      Connection connection, DataSource pool, DSLContext db, TakeRequest take) throws SQLException;

  /**
   * Starts a take's transaction on {@code c}, which the pool hands out in autocommit: by default
   * the driver's {@code setAutoCommit(false)}, undone by {@link #end}.
   */
  public void begin(Connection c) throws SQLException {
    c.setAutoCommit(false);
  }

  /** Commits the transaction {@link #begin} started. */
  public void commit(Connection c) throws SQLException {
    c.commit();
  }

  /** Rolls back the transaction {@link #begin} started. */
  public void rollback(Connection c) throws SQLException {
    c.rollback();
  }

  /**
   * Ends a take's transaction whose UPDATE moved {@code max_id} by {@code taken} but whose guard or
   * a later statement failed, so nothing of it is taken: by default a rollback.
   */
  public void abandon(Connection c, DSLContext db, TakeRequest take, Taken taken)
      throws SQLException {
    rollback(c);
  }

  /** After {@link #commit} or {@link #rollback}: {@code c} back in autocommit for the pool. */
  public void end(Connection c) throws SQLException {
    c.setAutoCommit(true);
  }

  /**
   * After the COMMIT of a take run in a transaction: throws when the commit returned in a way that
   * does not prove the range safe, so it is dropped (a gap). Nothing by default.
   */
  public void committed(Connection connection, TakeRequest take, Taken range) throws SQLException {}

  /** Runs {@code update} and returns what its {@code LAST_INSERT_ID(expr)} set; empty: no row. */
  @FunctionalInterface
  interface LastInsertId {
    OptionalLong execute(Query update) throws SQLException;
  }

  /**
   * The take as {@code UPDATE … SET max_id = LAST_INSERT_ID(max_id + s)}, for the products that
   * have {@code LAST_INSERT_ID(expr)}; {@code execute} reads the value it set.
   *
   * <p>The step added is a bound value, never read back, so {@code [max_id - s, max_id)} is exactly
   * what the UPDATE moved past.
   */
  static Taken lastInsertIdTake(DSLContext db, TakeRequest take, LastInsertId execute)
      throws SQLException {
    // The row's step: the amount to add when the caller asks for the table step, and the floor
    // of the dynamic step either way. Read before the UPDATE and only ever added as a value, so
    // an UpdateStep racing with this take changes the next segment, never this one's bounds.
    Record2<Long, Integer> row =
        db.select(LEAF_ALLOC.MAX_ID, LEAF_ALLOC.STEP)
            .from(LEAF_ALLOC)
            .where(LEAF_ALLOC.BIZ_TAG.eq(take.bizTag()))
            .fetchOne();
    if (row == null) {
      throw take.rules().missing();
    }
    int added = take.rules().added(row.value1(), row.value2());
    int tableStep = row.value2();
    // The guard on max_id keeps the addition inside BIGINT: nothing is taken, nothing wraps.
    Query update =
        db.update(LEAF_ALLOC)
            .set(
                LEAF_ALLOC.MAX_ID,
                DSL.function(
                    "LAST_INSERT_ID", Long.class, LEAF_ALLOC.MAX_ID.plus(DSL.val((long) added))))
            .set(LEAF_ALLOC.UPDATE_TIME, take.updateTime())
            .where(LEAF_ALLOC.BIZ_TAG.eq(take.bizTag()))
            .and(LEAF_ALLOC.MAX_ID.le(DSL.val(Long.MAX_VALUE - added)));
    OptionalLong maxId = execute.execute(update);
    if (maxId.isEmpty()) {
      Long current =
          db.select(LEAF_ALLOC.MAX_ID)
              .from(LEAF_ALLOC)
              .where(LEAF_ALLOC.BIZ_TAG.eq(take.bizTag()))
              .fetchOne(LEAF_ALLOC.MAX_ID);
      if (current == null) {
        throw take.rules().missing();
      }
      throw take.rules().overflow(current, added);
    }
    return new Taken(maxId.getAsLong(), added, tableStep);
  }

  /** A take's question: {@code step} IDs of {@code bizTag}, or the row's step for 0. */
  public record TakeRequest(String bizTag, int step, Field<Long> updateTime, TakeRules rules) {}

  /** The range a take moved past: {@code [end - added, end)}; {@code tableStep} the row's step. */
  public record Taken(long end, int added, int tableStep) {}

  /** The segment store's rules a take applies, and the failures it throws. */
  public interface TakeRules {

    /** The amount to add to a row holding {@code maxId} and {@code tableStep}, or throws. */
    int added(Long maxId, Integer tableStep);

    /** The failure of a tag with no row. */
    RuntimeException missing();

    /** The failure of a take past 2⁶³−1: nothing was taken. */
    RuntimeException overflow(long maxId, int added);

    /** The failure of a take whose safety is in doubt (a gap), or that took nothing for now. */
    RuntimeException unavailable(String message, Throwable cause);
  }
}
