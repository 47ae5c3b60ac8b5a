package io.leaf.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.leaf.server.store.DataSources;
import io.leaf.server.store.JooqSegmentStore;
import io.leaf.server.testing.InProcessLeaf;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.UpdateStepRequest;
import java.nio.file.Path;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/** A database that takes no writes: every write RPC says so, none claims an outage. */
class ReadOnlyDatabaseTest {

  @Test
  void writes_h2OpenedReadOnly_failedPreconditionWithTheReason(@TempDir Path dir) throws Exception {
    String url = "jdbc:h2:file:" + dir.resolve("leaf").toAbsolutePath();
    try (HikariDataSource writable = DataSources.create(url, "sa", "", 1)) {
      JooqSegmentStore store =
          new JooqSegmentStore(writable, DataSources.dialectOf(url), InstantSource.system());
      store.createSchemaIfMissing();
      store.createTag("frozen", 1, 10, null);
    }
    String readOnly = url + ";ACCESS_MODE_DATA=r";
    try (HikariDataSource pool = DataSources.create(readOnly, "sa", "", 2)) {
      assertWritesRefused(pool, readOnly, "read only");
    }
  }

  @Test
  void writes_mariaDbReadOnlyTransactions_failedPreconditionWithTheReason() throws Exception {
    try (TestDatabase db = TestDatabases.mariaDb()) {
      db.store(1).createTag("frozen", 1, 10, null);
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(db.url);
      config.setUsername(db.user);
      config.setPassword(db.password);
      config.setMaximumPoolSize(2);
      // What a server behind a read-only proxy or a user forced into read-only sessions sees:
      // every write fails with MariaDB's error 1792.
      config.setConnectionInitSql("SET SESSION TRANSACTION READ ONLY");
      try (HikariDataSource pool = new HikariDataSource(config)) {
        assertWritesRefused(pool, db.url, "READ ONLY");
      }
    }
  }

  /**
   * PostgreSQL answers a write on a standby, or on a primary demoted under a live connection, with
   * SQLState 25006; a new connection on a multi-host URL reaches the new primary, so this is an
   * outage a retry fixes, not a refusal.
   */
  @Test
  void writes_postgresReadOnlyTransactions_unavailableForARetryOnTheNextHost() throws Exception {
    try (TestDatabase db = TestDatabases.postgres()) {
      db.store(1).createTag("frozen", 1, 10, null);
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(db.url);
      config.setUsername(db.user);
      config.setPassword(db.password);
      config.setMaximumPoolSize(2);
      config.setConnectionInitSql("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY");
      try (HikariDataSource pool = new HikariDataSource(config)) {
        JooqSegmentStore store =
            new JooqSegmentStore(pool, DataSources.dialectOf(db.url), InstantSource.system());
        store.createSchemaIfMissing();
        try (InProcessLeaf leaf = new InProcessLeaf(store)) {
          assertEquals(
              10,
              leaf.blocking
                  .getTag(GetTagRequest.newBuilder().setBizTag("frozen").build())
                  .getTag()
                  .getStep(),
              "reads work");
          assertUnavailable(
              () -> leaf.blocking.nextId(NextIdRequest.newBuilder().setBizTag("frozen").build()));
          assertUnavailable(
              () ->
                  leaf.blocking.createTag(CreateTagRequest.newBuilder().setBizTag("new").build()));
          assertUnavailable(
              () ->
                  leaf.blocking.updateStep(
                      UpdateStepRequest.newBuilder().setBizTag("frozen").setStep(20).build()));
        }
      }
    }
  }

  private static void assertUnavailable(Executable call) {
    StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call);
    assertEquals(
        Status.Code.UNAVAILABLE,
        e.getStatus().getCode(),
        "a read-only PostgreSQL is a host to leave, not a refusal: " + e.getStatus());
    assertTrue(
        String.valueOf(e.getStatus().getDescription()).contains("read-only"),
        "the message carries the database's reason: " + e.getStatus());
  }

  private static void assertWritesRefused(HikariDataSource pool, String url, String reason)
      throws Exception {
    JooqSegmentStore store =
        new JooqSegmentStore(pool, DataSources.dialectOf(url), InstantSource.system());
    store.createSchemaIfMissing();
    try (InProcessLeaf leaf = new InProcessLeaf(store)) {
      assertEquals(
          10,
          leaf.blocking
              .getTag(GetTagRequest.newBuilder().setBizTag("frozen").build())
              .getTag()
              .getStep(),
          "reads work");
      assertRefused(
          reason,
          () -> leaf.blocking.nextId(NextIdRequest.newBuilder().setBizTag("frozen").build()));
      assertRefused(
          reason,
          () -> leaf.blocking.createTag(CreateTagRequest.newBuilder().setBizTag("new").build()));
      assertRefused(
          reason,
          () ->
              leaf.blocking.updateStep(
                  UpdateStepRequest.newBuilder().setBizTag("frozen").setStep(20).build()));
    }
  }

  private static void assertRefused(String reason, Executable call) {
    StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call);
    assertEquals(
        Status.Code.FAILED_PRECONDITION,
        e.getStatus().getCode(),
        "a database that takes no writes is no outage: " + e.getStatus());
    assertTrue(
        String.valueOf(e.getStatus().getDescription()).contains(reason),
        "the message carries the database's reason '" + reason + "': " + e.getStatus());
  }
}
