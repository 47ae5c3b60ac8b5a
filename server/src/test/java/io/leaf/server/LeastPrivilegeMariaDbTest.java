package io.leaf.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.ordering.JooqOrderingStore;
import io.leaf.server.store.UnusableTableException;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import io.leaf.server.wiring.LeafServerBuilder;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdRequest;
import java.time.InstantSource;
import java.util.concurrent.TimeUnit;
import org.jooq.SQLDialect;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The production wiring ({@link LeafServerBuilder}) logged in as a MariaDB user that holds only
 * some privileges on {@code leaf_alloc}, as a DBA grants them ({@link LeastPrivilegePostgresTest}:
 * the same on PostgreSQL).
 */
class LeastPrivilegeMariaDbTest {

  private TestDatabase db;
  private LeafServer server;
  private ManagedChannel channel;

  TestDatabase newDatabase() {
    return TestDatabases.mariaDb();
  }

  /** What the database says when a user lacks {@code privilege} on leaf_alloc. */
  String denied(String privilege) {
    return privilege + " command denied";
  }

  /** A login the database refuses, made from {@code login}. */
  TestDatabase.Login refusedLogin(TestDatabase db, TestDatabase.Login login) throws Exception {
    return new TestDatabase.Login(login.user(), "not-" + login.password());
  }

  /** What the database says to {@link #refusedLogin}. */
  String loginRefusal() {
    return "Access denied for user";
  }

  @BeforeEach
  void setUp() {
    db = newDatabase();
    db.store(1).createTag("existing", 1, 100, "created by the DBA");
  }

  @AfterEach
  void tearDown() throws Exception {
    if (channel != null) {
      channel.shutdownNow();
    }
    if (server != null) {
      server.stop();
    }
    if (db != null) {
      db.close();
    }
  }

  /**
   * A user granted {@code privileges} on leaf_alloc, and what every server needs: SELECT on
   * leaf_region, SELECT, INSERT and UPDATE on leaf_tag_lease (created by the DBA, as the schema
   * file does).
   */
  private TestDatabase.Login user(String privileges) throws Exception {
    TestDatabase.Login login = db.createUser(privileges);
    db.grant(login, "SELECT", "leaf_region");
    try (HikariDataSource admin = db.pool(1)) {
      new JooqOrderingStore(
              admin,
              db.isPostgres() ? SQLDialect.POSTGRES : SQLDialect.MYSQL,
              InstantSource.system())
          .createSchemaIfMissing();
    }
    db.grant(login, "SELECT, INSERT, UPDATE", "leaf_tag_lease");
    return login;
  }

  private LeafServiceGrpc.LeafServiceBlockingStub startAs(TestDatabase.Login login, String... flags)
      throws Exception {
    String[] args =
        java.util.stream.Stream.concat(
                java.util.stream.Stream.of(
                    "--db-url",
                    db.url,
                    "--db-user",
                    login.user(),
                    "--db-password",
                    login.password(),
                    "--db-pool-size",
                    "2"),
                java.util.Arrays.stream(flags))
            .toArray(String[]::new);
    ServerConfig config = ServerConfig.parse(args, env -> null);
    String name = InProcessServerBuilder.generateName();
    server =
        LeafServerBuilder.forConfig(config)
            .transport(InProcessServerBuilder.forName(name))
            .build()
            .start();
    channel = InProcessChannelBuilder.forName(name).build();
    return LeafServiceGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS);
  }

  private ServingStatus health() {
    return HealthGrpc.newBlockingStub(channel)
        .check(HealthCheckRequest.newBuilder().setService("leaf.v1.LeafService").build())
        .getStatus();
  }

  @Test
  void start_selectInsertUpdateOnLeafAllocAndTheLedger_servingAndIssuesIds() throws Exception {
    TestDatabase.Login login = user("SELECT, INSERT, UPDATE");
    db.grant(login, "SELECT, INSERT, UPDATE, DELETE", "leaf_ledger");
    LeafServiceGrpc.LeafServiceBlockingStub leaf = startAs(login);

    assertEquals(
        ServingStatus.SERVING, health(), "no CREATE privilege is needed when leaf_alloc exists");
    assertEquals(1, leaf.nextId(NextIdRequest.newBuilder().setBizTag("existing").build()).getId());
    leaf.createTag(CreateTagRequest.newBuilder().setBizTag("new").setStep(10).build());
    assertEquals(1, leaf.nextId(NextIdRequest.newBuilder().setBizTag("new").build()).getId());
    assertEquals(
        101,
        leaf.getTag(GetTagRequest.newBuilder().setBizTag("existing").build()).getTag().getMaxId());
  }

  @Test
  void start_ledgerOnWithoutPrivilegesOnLeafLedger_refusedNamingTheTableAndTheFlag()
      throws Exception {
    TestDatabase.Login login = user("SELECT, INSERT, UPDATE");

    UnusableTableException e = assertThrows(UnusableTableException.class, () -> startAs(login));
    assertTrue(
        e.getMessage().contains("leaf_ledger") && e.getMessage().contains("--ledger off"),
        e.getMessage());
    assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
  }

  @Test
  void start_ledgerOff_privilegesOnLeafAllocSuffice() throws Exception {
    LeafServiceGrpc.LeafServiceBlockingStub leaf =
        startAs(user("SELECT, INSERT, UPDATE"), "--ledger", "off");

    assertEquals(ServingStatus.SERVING, health());
    assertEquals(1, leaf.nextId(NextIdRequest.newBuilder().setBizTag("existing").build()).getId());
  }

  @Test
  void writes_selectOnly_failedPreconditionWithTheDatabasesReason() throws Exception {
    LeafServiceGrpc.LeafServiceBlockingStub leaf = startAs(user("SELECT"), "--ledger", "off");

    assertEquals(
        100,
        leaf.getTag(GetTagRequest.newBuilder().setBizTag("existing").build()).getTag().getStep(),
        "reads work");
    assertRefused(
        denied("INSERT"),
        () -> leaf.createTag(CreateTagRequest.newBuilder().setBizTag("new").build()));
    assertRefused(
        denied("UPDATE"),
        () -> leaf.nextId(NextIdRequest.newBuilder().setBizTag("existing").build()));
  }

  @Tag("slow")
  @Test
  void start_loginRefused_refusedWithTheReasonAndTheFlags() throws Exception {
    TestDatabase.Login login = user("SELECT, INSERT, UPDATE");

    UnusableTableException e =
        assertThrows(
            UnusableTableException.class,
            () -> startAs(refusedLogin(db, login)),
            "no retry fixes a refused login: start refuses");
    assertTrue(e.loginRefused(), "a refused login, not a table: " + e.getMessage());
    assertTrue(
        e.getMessage().contains(loginRefusal()),
        "the message carries the database's reason '" + loginRefusal() + "': " + e.getMessage());
    assertTrue(e.getMessage().contains("--db-"), "the message names the flag: " + e.getMessage());
    assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
  }

  private static void assertRefused(String reason, Executable call) {
    StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call);
    assertEquals(
        Status.Code.FAILED_PRECONDITION,
        e.getStatus().getCode(),
        "a denied write is no outage: " + e.getStatus());
    assertTrue(
        String.valueOf(e.getStatus().getDescription()).contains(reason),
        "the message carries the database's reason '" + reason + "': " + e.getStatus());
  }
}
