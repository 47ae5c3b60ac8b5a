package io.leaf.server.store;

import java.sql.SQLException;
import java.util.Map;
import java.util.Set;
import org.postgresql.util.PSQLException;

/**
 * The one table from database errors to what they mean for Leaf, decided by the SQLState class and
 * the vendor code of every {@link SQLException} in the cause chain (outermost first; the first that
 * is not {@link Kind#TRANSIENT} decides).
 *
 * <table>
 *   <caption>Database errors by kind</caption>
 *   <tr><th>kind</th><th>SQLState</th><th>vendor code</th></tr>
 *   <tr><td>{@link Kind#CONFLICT}</td><td>40001</td>
 *       <td>MySQL/MariaDB 1213 deadlock (also a Galera certification conflict), 1205 lock wait
 *       timeout</td></tr>
 *   <tr><td>{@link Kind#DUPLICATE_KEY}</td><td>23505 (H2)</td><td>1062, 1586 duplicate
 *       entry</td></tr>
 *   <tr><td>{@link Kind#TRANSIENT}</td><td></td><td>1203, 1226 too many connections for the
 *       user (SQLState 42000)</td></tr>
 *   <tr><td>{@link Kind#REFUSED}</td><td>class 28 (access denied for the user: 1045), class 42
 *       (access denied to a table or column: 1142, 1143, 1044; no such table or column), class
 *       22 (a value the column cannot hold), class 23 other than a duplicate (NULL into NOT
 *       NULL), class 25 (read-only transaction: 1792), class 0A (not supported), class 44</td>
 *       <td>MySQL/MariaDB 1290 (--read-only), 1836 (read-only mode), 1036 (table is read
 *       only), 1364 (no default for a column), 1366 (wrong value for a column); H2 90097
 *       (database is read only), 90096 (not enough rights)</td></tr>
 *   <tr><td>{@link Kind#TRANSIENT}</td><td colspan="2">everything else: class 08 (connection
 *       refused, lost, timed out), a pool that gave no connection in time, a query interrupted
 *       or timed out</td></tr>
 * </table>
 *
 * <p>PostgreSQL's errors carry no vendor code, only a SQLState, and some states mean something else
 * there than on MySQL, so an error from the PostgreSQL driver is read with its own table:
 *
 * <table>
 *   <caption>PostgreSQL errors by kind</caption>
 *   <tr><th>kind</th><th>SQLState</th></tr>
 *   <tr><td>{@link Kind#CONFLICT}</td><td>40001 serialization failure, 40P01 deadlock, 55P03
 *       lock not available</td></tr>
 *   <tr><td>{@link Kind#DUPLICATE_KEY}</td><td>23505</td></tr>
 *   <tr><td>{@link Kind#TRANSIENT}</td><td>25006 read-only transaction: a standby, or a primary
 *       demoted under a live connection; a new connection on a multi-host URL with
 *       {@code targetServerType=primary} reaches the new primary. Class 08 (connection), 53
 *       (insufficient resources, too many connections), 57 (shutting down, cannot connect now,
 *       statement cancelled)</td></tr>
 *   <tr><td>{@link Kind#REFUSED}</td><td>42501 permission denied (the message names the
 *       privilege the statement needs), class 28 (authentication), 42, 22, 23, 0A, 44, 3D (no
 *       such database), 3F (no such schema)</td></tr>
 * </table>
 *
 * <p>An error the table does not know is transient: a retry of it costs a little time, while
 * calling a passing outage permanent would stop clients that could have waited it out.
 */
public final class DatabaseErrors {

  /** What a failure means for the caller. */
  public enum Kind {
    /** Two writes collided and this one was rolled back; worth running again at once. */
    CONFLICT,
    /** A unique key is taken: the tag exists. */
    DUPLICATE_KEY,
    /** The database refuses, and will again until someone changes it (grants, mode, table). */
    REFUSED,
    /** The database could not be reached or failed for now; a later call may succeed. */
    TRANSIENT
  }

  /** MySQL/MariaDB ER_LOCK_DEADLOCK: a deadlock or a Galera certification conflict. */
  static final int ER_LOCK_DEADLOCK = 1213;

  /** MySQL/MariaDB ER_LOCK_WAIT_TIMEOUT. */
  static final int ER_LOCK_WAIT_TIMEOUT = 1205;

  /** SQL:2003 "serialization failure": how Connector/J and H2 report a deadlock. */
  static final String SERIALIZATION_FAILURE = "40001";

  /** Vendor codes that decide on their own, whatever their SQLState says. */
  private static final Map<Integer, Kind> VENDOR_CODES =
      Map.ofEntries(
          Map.entry(ER_LOCK_DEADLOCK, Kind.CONFLICT),
          Map.entry(ER_LOCK_WAIT_TIMEOUT, Kind.CONFLICT),
          Map.entry(1062, Kind.DUPLICATE_KEY), // ER_DUP_ENTRY
          Map.entry(1586, Kind.DUPLICATE_KEY), // ER_DUP_ENTRY_WITH_KEY_NAME
          Map.entry(1203, Kind.TRANSIENT), // ER_TOO_MANY_USER_CONNECTIONS (42000)
          Map.entry(1226, Kind.TRANSIENT), // ER_USER_LIMIT_REACHED (42000)
          Map.entry(1290, Kind.REFUSED), // ER_OPTION_PREVENTS_STATEMENT: --read-only
          Map.entry(1836, Kind.REFUSED), // ER_READ_ONLY_MODE
          Map.entry(1036, Kind.REFUSED), // ER_OPEN_AS_READONLY: table is read only
          Map.entry(1364, Kind.REFUSED), // ER_NO_DEFAULT_FOR_FIELD
          Map.entry(1366, Kind.REFUSED), // ER_TRUNCATED_WRONG_VALUE_FOR_FIELD
          Map.entry(1267, Kind.REFUSED), // ER_CANT_AGGREGATE_2COLLATIONS
          Map.entry(1270, Kind.REFUSED), // ER_CANT_AGGREGATE_3COLLATIONS
          Map.entry(1271, Kind.REFUSED), // ER_CANT_AGGREGATE_NCOLLATIONS
          Map.entry(90097, Kind.REFUSED), // H2 DATABASE_IS_READ_ONLY
          Map.entry(90096, Kind.REFUSED)); // H2 NOT_ENOUGH_RIGHTS_FOR_1

  /** SQLState classes (the first two characters) that are refusals. */
  private static final Set<String> REFUSED_CLASSES =
      Set.of("28", "42", "22", "23", "25", "0A", "44");

  private DatabaseErrors() {}

  /** PostgreSQL's SQLStates that decide on their own, whatever their class. */
  private static final Map<String, Kind> POSTGRES_STATES =
      Map.of(
          SERIALIZATION_FAILURE,
          Kind.CONFLICT,
          "40P01",
          Kind.CONFLICT, // deadlock_detected
          "55P03",
          Kind.CONFLICT, // lock_not_available
          "23505",
          Kind.DUPLICATE_KEY, // unique_violation
          "25006",
          Kind.TRANSIENT); // read_only_sql_transaction: not the primary

  /** PostgreSQL SQLState classes that are refusals. */
  private static final Set<String> POSTGRES_REFUSED_CLASSES =
      Set.of("28", "42", "22", "23", "0A", "44", "3D", "3F");

  /** PostgreSQL's insufficient_privilege. */
  static final String POSTGRES_PERMISSION_DENIED = "42501";

  /** What {@code t} means: the first SQL error in its cause chain that is not transient. */
  public static Kind classify(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof SQLException sql) {
        Kind kind =
            isPostgres(sql)
                ? classifyPostgres(sql.getSQLState())
                : classify(sql.getSQLState(), sql.getErrorCode());
        if (kind != Kind.TRANSIENT) {
          return kind;
        }
      }
    }
    return Kind.TRANSIENT;
  }

  /** Whether the PostgreSQL driver raised {@code e}: its SQLStates follow PostgreSQL's table. */
  private static boolean isPostgres(SQLException e) {
    return e instanceof PSQLException;
  }

  private static Kind classifyPostgres(String sqlState) {
    if (sqlState == null || sqlState.length() < 2) {
      return Kind.TRANSIENT;
    }
    Kind byState = POSTGRES_STATES.get(sqlState);
    if (byState != null) {
      return byState;
    }
    return POSTGRES_REFUSED_CLASSES.contains(sqlState.substring(0, 2))
        ? Kind.REFUSED
        : Kind.TRANSIENT;
  }

  private static Kind classify(String sqlState, int vendorCode) {
    Kind byCode = VENDOR_CODES.get(vendorCode);
    if (byCode != null) {
      return byCode;
    }
    if (sqlState == null || sqlState.length() < 2) {
      return Kind.TRANSIENT;
    }
    if (sqlState.equals(SERIALIZATION_FAILURE)) {
      return Kind.CONFLICT;
    }
    if (sqlState.equals("23505")) {
      return Kind.DUPLICATE_KEY;
    }
    return REFUSED_CLASSES.contains(sqlState.substring(0, 2)) ? Kind.REFUSED : Kind.TRANSIENT;
  }

  /**
   * The exception a store method throws for {@code e}: {@link StoreUnavailableException} for a
   * conflict that outlived its retries or a transient failure, {@link StoreRejectedException} for a
   * refusal, {@link DuplicateKey} for the caller to name the tag. Each message says what could not
   * be done and the database's own reason.
   *
   * @param what what was being done, e.g. {@code "create tag order"}
   * @param attempts how many times a conflicting write was tried
   */
  public static RuntimeException toStoreException(String what, Throwable e, int attempts) {
    return toStoreException(what, null, e, attempts);
  }

  /**
   * As {@link #toStoreException(String, Throwable, int)}; {@code privileges} (e.g. {@code "UPDATE
   * and SELECT"}), when not null, is added to a PostgreSQL "permission denied", whose message names
   * the table but not the privilege the statement lacked.
   */
  public static RuntimeException toStoreException(
      String what, String privileges, Throwable e, int attempts) {
    Throwable root = rootCause(e);
    String reason =
        root.getMessage() != null
            ? root.getMessage()
            : root.getClass().getSimpleName() + " (no message)";
    if (privileges != null && isPostgresPermissionDenied(e)) {
      reason += " (to " + what + " Leaf needs the " + privileges + " privileges on leaf_alloc)";
    }
    String flags = loginFlags(e);
    if (flags != null) {
      return UnusableTableException.loginRefused(
          "the database refused Leaf's login: " + reason + " (check " + flags + ")");
    }
    return switch (classify(e)) {
      case DUPLICATE_KEY -> new DuplicateKey(e);
      case CONFLICT ->
          new WriteConflictException(
              "could not "
                  + what
                  + ": write conflict"
                  + " on leaf_alloc persisted after "
                  + attempts
                  + " attempts: "
                  + reason,
              e);
      case REFUSED ->
          new StoreRejectedException("the database refused to " + what + ": " + reason, e);
      case TRANSIENT ->
          new StoreUnavailableException(
              "database unavailable: could not " + what + ": " + reason, e);
    };
  }

  /**
   * The flags to fix when {@code t} is a refused login or an unknown database, else null:
   * MySQL/MariaDB 1045 and 1698 (access denied), 1044 (no access to the database), 1049 (unknown
   * database); PostgreSQL 28000 and 28P01 (authentication, no such role), 3D000 (no such database);
   * H2 28000 (wrong user or password), 90146 (no such database).
   */
  static String loginFlags(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof SQLException sql) {
        String state = sql.getSQLState();
        if (isPostgres(sql)) {
          if ("28000".equals(state) || "28P01".equals(state)) {
            return CREDENTIALS;
          }
          if ("3D000".equals(state)) {
            return "--db-url";
          }
        } else {
          switch (sql.getErrorCode()) {
            case 1045, 1698, 28000:
              return CREDENTIALS;
            case 1044:
              return "--db-url and --db-user";
            case 1049, 90146:
              return "--db-url";
            default:
              break;
          }
        }
      }
    }
    return null;
  }

  private static final String CREDENTIALS = "--db-user and --db-password";

  private static boolean isPostgresPermissionDenied(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof SQLException sql
          && isPostgres(sql)
          && POSTGRES_PERMISSION_DENIED.equals(sql.getSQLState())) {
        return true;
      }
    }
    return false;
  }

  private static Throwable rootCause(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    return c;
  }

  /** MySQL/MariaDB's "Illegal mix of collations" errors (for two, three or more operands). */
  private static final Set<Integer> COLLATION_MIX = Set.of(1267, 1270, 1271);

  /** True when {@code t} says a comparison mixed collations the database cannot reconcile. */
  public static boolean isCollationMix(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof SQLException sql && COLLATION_MIX.contains(sql.getErrorCode())) {
        return true;
      }
    }
    return false;
  }

  /** A unique-key violation; the store turns it into {@link TagAlreadyExistsException}. */
  public static final class DuplicateKey extends RuntimeException {
    DuplicateKey(Throwable cause) {
      super(cause);
    }
  }
}
