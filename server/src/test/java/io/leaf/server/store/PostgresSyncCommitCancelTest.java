package io.leaf.server.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.leaf.server.ledger.LedgerSettings;
import io.leaf.server.ledger.RecordedTakes;
import io.leaf.server.testing.Poll;
import io.leaf.server.testing.Ports;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A real PostgreSQL whose commits wait for a synchronous standby that never comes ({@code
 * synchronous_standby_names = 'nobody'}): the segment UPDATE waits after its local commit; a cancel
 * request then ends the wait, and PostgreSQL reports success with only a WARNING. That segment must
 * never be used. The server is a private instance on a free port in a temporary directory, started
 * with PostgreSQL 15's own binaries (as user {@code postgres} when run as root); without them the
 * test is skipped with a visible line.
 */
@Tag("slow")
class PostgresSyncCommitCancelTest {

  private static final Path BIN = Path.of("/usr/lib/postgresql/15/bin");

  private Path dir;
  private final List<HikariDataSource> pools = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    pools.forEach(HikariDataSource::close);
    if (dir != null) {
      run(
          BIN.resolve("pg_ctl").toString(),
          "-D",
          dir.resolve("data").toString(),
          "-m",
          "immediate",
          "-w",
          "stop");
      try (Stream<Path> paths = Files.walk(dir)) {
        paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  @Test
  @Timeout(120)
  void nextSegment_syncReplicationWaitCancelled_warningSeenAndRangeNeverUsed() throws Exception {
    cancelledWait(LedgerSettings.OFF);
  }

  /** With the ledger the take is a transaction: the wait, and the warning, come with COMMIT. */
  @Test
  @Timeout(120)
  void nextSegmentWithLedger_commitsWaitCancelled_warningSeenAndRangeNeverUsed() throws Exception {
    cancelledWait(LedgerSettings.on("host:1/2-abcdef"));
  }

  private void cancelledWait(LedgerSettings ledger) throws Exception {
    int port = startPrivateServer();
    String local = "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    // The table and the tag commit without waiting for the standby.
    JooqSegmentStore setup = store(local + "?options=-c%20synchronous_commit=local", ledger);
    setup.createSchemaIfMissing();
    setup.createTag("sync", 1, 100, null);
    JooqSegmentStore store = store(local, ledger);
    store.createSchemaIfMissing();

    CompletableFuture<SegmentRange> take =
        CompletableFuture.supplyAsync(() -> store.nextSegment("sync", SegmentStore.TABLE_STEP));
    try (Connection admin = DriverManager.getConnection(local, "postgres", "");
        Statement s = admin.createStatement()) {
      int waiting =
          Poll.retry(
              () -> {
                try (ResultSet rs =
                    s.executeQuery(
                        "SELECT pid FROM pg_stat_activity WHERE wait_event = 'SyncRep' AND"
                            + " application_name = 'leaf-server'")) {
                  if (!rs.next()) {
                    throw new IllegalStateException("no backend waits for SyncRep yet");
                  }
                  return rs.getInt(1);
                }
              },
              e -> e instanceof IllegalStateException,
              Duration.ofSeconds(20));
      assertTrue(waiting > 0, "the segment UPDATE waits for the synchronous standby");
      s.execute("SELECT pg_cancel_backend(" + waiting + ")");
    }
    ExecutionException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            ExecutionException.class, () -> take.get(30, TimeUnit.SECONDS));

    assertTrue(e.getCause() instanceof StoreUnavailableException, "unavailable: " + e.getCause());
    assertTrue(
        e.getCause().getMessage().contains("[1, 101)")
            && e.getCause().getMessage().contains("canceling wait for synchronous replication"),
        e.getCause().getMessage());
    assertEquals(
        101,
        setup.getTag("sync").orElseThrow().maxId(),
        "PostgreSQL kept the commit locally: the range is a gap, never handed out");
  }

  private JooqSegmentStore store(String url, LedgerSettings ledger) {
    HikariDataSource pool = DataSources.create(url, "postgres", "", 2);
    pools.add(pool);
    return new JooqSegmentStore(
        pool,
        DataSources.dialectOf(url),
        InstantSource.system(),
        new RecordedTakes(ledger, InstantSource.system()));
  }

  /** initdb and start a private server; returns its port. */
  private int startPrivateServer() throws Exception {
    if (!Files.isExecutable(BIN.resolve("initdb"))) {
      skip(BIN + "/initdb not found (apt-get install postgresql-15)");
    }
    boolean root = "root".equals(System.getProperty("user.name"));
    dir = Files.createTempDirectory("leaf-pgsync-");
    if (root && run("chown", "postgres:", dir.toString()) != 0) {
      skip("cannot hand " + dir + " to user postgres");
    }
    int port = Ports.free();
    if (run(
            BIN.resolve("initdb").toString(),
            "-D",
            dir.resolve("data").toString(),
            "-A",
            "trust",
            "-U",
            "postgres")
        != 0) {
      skip("initdb failed (see " + dir + ")");
    }
    if (run(
            BIN.resolve("pg_ctl").toString(),
            "-D",
            dir.resolve("data").toString(),
            "-l",
            dir.resolve("log").toString(),
            "-w",
            "-o",
            "-p "
                + port
                + " -k "
                + dir
                + " -c listen_addresses=127.0.0.1 -c synchronous_standby_names=nobody",
            "start")
        != 0) {
      skip("the private PostgreSQL did not start (see " + dir.resolve("log") + ")");
    }
    return port;
  }

  /** Runs a command (as user postgres when this JVM is root); its exit code. */
  private static int run(String... command) throws IOException, InterruptedException {
    List<String> full = new ArrayList<>();
    if ("root".equals(System.getProperty("user.name")) && !command[0].equals("chown")) {
      full.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    full.addAll(List.of(command));
    Process p =
        new ProcessBuilder(full)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return -1;
    }
    return p.exitValue();
  }

  private static void skip(String reason) {
    System.err.println("[leaf-tests] SKIPPED PostgreSQL synchronous-commit test: " + reason);
    Assumptions.abort("SKIPPED: " + reason);
  }
}
