package io.leaf.server.store;

import static io.leaf.server.store.DatabaseErrors.Kind.CONFLICT;
import static io.leaf.server.store.DatabaseErrors.Kind.DUPLICATE_KEY;
import static io.leaf.server.store.DatabaseErrors.Kind.REFUSED;
import static io.leaf.server.store.DatabaseErrors.Kind.TRANSIENT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.jooq.exception.DataAccessException;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/** The table of database errors, row by row, with the codes the servers really send. */
class DatabaseErrorsTest {

  private static DatabaseErrors.Kind kind(String state, int code) {
    return DatabaseErrors.classify(
        new DataAccessException("statement failed", new SQLException("reason", state, code)));
  }

  @Test
  void classify_permissionDenied_refused() {
    assertEquals(REFUSED, kind("42000", 1142), "INSERT command denied to user for table");
    assertEquals(REFUSED, kind("42000", 1143), "SELECT command denied for column");
    assertEquals(REFUSED, kind("42000", 1044), "access denied for user to database");
    assertEquals(REFUSED, kind("28000", 1045), "access denied for user (password)");
    assertEquals(REFUSED, kind("90096", 90096), "H2: not enough rights");
  }

  @Test
  void classify_readOnly_refused() {
    assertEquals(REFUSED, kind("HY000", 1290), "server runs with --read-only");
    assertEquals(REFUSED, kind("25006", 1792), "READ ONLY transaction");
    assertEquals(REFUSED, kind("HY000", 1036), "table is read only");
    assertEquals(REFUSED, kind("90097", 90097), "H2: database is read only");
  }

  @Test
  void classify_tableOrValueTheDatabaseWillNotTake_refused() {
    assertEquals(REFUSED, kind("22007", 1292), "incorrect datetime value");
    assertEquals(REFUSED, kind("22001", 1406), "data too long");
    assertEquals(REFUSED, kind("HY000", 1366), "incorrect integer value");
    assertEquals(REFUSED, kind("HY000", 1364), "field has no default");
    assertEquals(REFUSED, kind("23000", 1048), "column cannot be null: no duplicate");
    assertEquals(REFUSED, kind("42S22", 1054), "unknown column");
    assertEquals(REFUSED, kind("42S02", 1146), "no such table");
    assertEquals(REFUSED, kind("22018", 22018), "H2: data conversion error");
  }

  @Test
  void classify_duplicateKey_duplicate() {
    assertEquals(DUPLICATE_KEY, kind("23000", 1062), "MySQL/MariaDB duplicate entry");
    assertEquals(DUPLICATE_KEY, kind("23505", 23505), "H2 unique index violation");
  }

  @Test
  void classify_writeConflicts_conflict() {
    assertEquals(CONFLICT, kind("40001", 1213), "deadlock");
    assertEquals(CONFLICT, kind("HY000", 1205), "lock wait timeout");
    assertEquals(CONFLICT, kind("40001", 40001), "H2 deadlock");
  }

  @Test
  void classify_outages_transient() {
    assertEquals(TRANSIENT, kind("08S01", 0), "communications link failure");
    assertEquals(TRANSIENT, kind("08004", 1040), "too many connections");
    assertEquals(TRANSIENT, kind("42000", 1203), "too many connections for the user");
    assertEquals(TRANSIENT, kind("70100", 1317), "query interrupted");
    assertEquals(TRANSIENT, kind("HY000", 2013), "lost connection during query");
    assertEquals(TRANSIENT, kind(null, 0), "no SQLState at all");
    assertEquals(
        TRANSIENT,
        DatabaseErrors.classify(
            new DataAccessException(
                "pool",
                new SQLTransientConnectionException(
                    "leaf-db - Connection is not available, request"
                        + " timed out after 3000ms (total=8, active=8, idle=0, waiting=3)"))),
        "pool exhausted");
    assertEquals(TRANSIENT, DatabaseErrors.classify(new IllegalStateException("no SQL")));
  }

  @Test
  void classify_poolTimeoutCausedByRefusal_refused() {
    SQLException denied = new SQLException("Access denied for user 'leaf'", "28000", 1045);
    assertEquals(
        REFUSED,
        DatabaseErrors.classify(
            new DataAccessException(
                "pool",
                new SQLTransientConnectionException(
                    "Connection is not available", "08S01", denied))),
        "HikariCP's timeout carries the last connection failure, a wrong password");
  }

  @Test
  void toStoreException_refusal_rejectedWithTheDatabasesReason() {
    RuntimeException e =
        DatabaseErrors.toStoreException(
            "create tag x",
            new DataAccessException(
                "failed", new SQLException("INSERT command denied to user 'ro'", "42000", 1142)),
            6);
    assertInstanceOf(StoreRejectedException.class, e);
    assertEquals(
        "the database refused to create tag x: INSERT command denied to user 'ro'", e.getMessage());
  }

  @Test
  void toStoreException_outage_unavailable() {
    RuntimeException e =
        DatabaseErrors.toStoreException(
            "ping",
            new DataAccessException(
                "failed", new SQLException("Communications link failure", "08S01", 0)),
            6);
    assertInstanceOf(StoreUnavailableException.class, e);
    assertEquals(
        "database unavailable: could not ping: Communications link failure", e.getMessage());
  }

  /** An error as pgjdbc raises it from the server's reply: SQLState and message, no code. */
  private static DatabaseErrors.Kind postgres(String state) {
    return DatabaseErrors.classify(
        new DataAccessException("statement failed", postgresError(state, "reason")));
  }

  private static PSQLException postgresError(String state, String message) {
    return new PSQLException(new ServerErrorMessage("SERROR\0C" + state + "\0M" + message));
  }

  @Test
  void classify_postgres_conflictsRetried() {
    assertEquals(CONFLICT, postgres("40001"), "serialization failure");
    assertEquals(CONFLICT, postgres("40P01"), "deadlock detected");
    assertEquals(CONFLICT, postgres("55P03"), "lock not available");
  }

  @Test
  void classify_postgresReadOnly_transientToBeRetriedOnTheNextHost() {
    assertEquals(
        TRANSIENT,
        postgres("25006"),
        "a standby or demoted primary: a new connection finds the primary");
    assertEquals(REFUSED, kind("25006", 1792), "MySQL's read-only transaction stays a refusal");
  }

  @Test
  void classify_postgresRefusalsAndOutages() {
    assertEquals(REFUSED, postgres("42501"), "permission denied");
    assertEquals(REFUSED, postgres("28P01"), "password authentication failed");
    assertEquals(REFUSED, postgres("28000"), "role is not permitted to log in");
    assertEquals(REFUSED, postgres("42P01"), "relation does not exist");
    assertEquals(REFUSED, postgres("3D000"), "database does not exist");
    assertEquals(DUPLICATE_KEY, postgres("23505"), "unique violation");
    assertEquals(REFUSED, postgres("23502"), "not-null violation");
    assertEquals(TRANSIENT, postgres("08001"), "connection refused");
    assertEquals(TRANSIENT, postgres("08006"), "connection failure");
    assertEquals(TRANSIENT, postgres("57P01"), "terminating connection: administrator command");
    assertEquals(TRANSIENT, postgres("57P03"), "the database system is starting up");
    assertEquals(TRANSIENT, postgres("53300"), "too many connections");
    assertEquals(TRANSIENT, postgres("57014"), "statement timeout");
  }

  @Test
  void toStoreException_postgresPermissionDenied_namesThePrivilegeNeeded() {
    RuntimeException e =
        DatabaseErrors.toStoreException(
            "take a segment of x",
            "UPDATE and SELECT",
            new DataAccessException(
                "failed", postgresError("42501", "permission denied for table leaf_alloc")),
            12);
    assertInstanceOf(StoreRejectedException.class, e);
    assertEquals(
        "the database refused to take a segment of x: ERROR: permission denied for table"
            + " leaf_alloc (to take a segment of x Leaf needs the UPDATE and SELECT privileges on"
            + " leaf_alloc)",
        e.getMessage());
  }
}
