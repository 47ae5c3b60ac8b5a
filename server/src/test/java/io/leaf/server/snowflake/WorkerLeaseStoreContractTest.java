package io.leaf.server.snowflake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.testing.Poll;
import io.leaf.server.testing.TestDatabase;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link JooqWorkerLeaseStore} against a real database; subclasses say which. */
abstract class WorkerLeaseStoreContractTest {

  private static final Duration TTL = Duration.ofSeconds(30);

  protected TestDatabase db;
  protected JooqWorkerLeaseStore store;

  protected abstract TestDatabase database();

  @BeforeEach
  void open() {
    db = database();
    store = newStore();
  }

  protected JooqWorkerLeaseStore newStore() {
    return new JooqWorkerLeaseStore(
        db.pool(4), io.leaf.server.store.DataSources.dialectOf(db.url), InstantSource.system());
  }

  @AfterEach
  void close() throws Exception {
    db.close();
  }

  @Test
  void claim_emptyTable_createsTableAndLeasesByDatabaseClock() {
    long before = System.currentTimeMillis();
    WorkerLease lease = store.claim(5, 5, "a", TTL).orElseThrow();
    assertEquals(5, lease.workerId(), "the only ID in range");
    assertEquals(0, lease.lastTimestampMs(), "never used");
    // The database runs on this machine's clock here; allow for a coarse one.
    assertTrue(
        Math.abs(lease.expiresMs() - (before + TTL.toMillis())) < 5_000,
        "expiry is the database's now plus the TTL: " + lease.expiresMs());
    assertEquals(Optional.empty(), store.claim(5, 5, "b", TTL), "held: no second claim");
  }

  @Test
  void renew_byOwner_extendsAndRecordsLastTimestamp_byOtherEmpty() {
    WorkerLease lease = store.claim(0, 0, "a", TTL).orElseThrow();
    WorkerLease renewed = store.renew(0, "a", TTL, 12345, 0).orElseThrow();
    assertTrue(renewed.expiresMs() >= lease.expiresMs(), "extended");
    assertEquals(12345, renewed.lastTimestampMs(), "recorded");
    assertEquals(
        12345,
        store.renew(0, "a", TTL, 100, 0).orElseThrow().lastTimestampMs(),
        "a renewal never lowers it");
    assertEquals(Optional.empty(), store.renew(0, "b", TTL, 1, 0), "not b's to renew");
  }

  @Test
  void renew_rowDeletedZeroedOrMovedBack_notRenewed() throws Exception {
    assertTrue(store.claim(0, 0, "a", TTL).isPresent(), "a claims the free worker ID");
    assertTrue(store.renew(0, "a", TTL, 50_000, 0).isPresent(), "a renews its lease");
    assertTrue(store.renew(0, "a", TTL, 60_000, 50_000).isPresent(), "the row holds 50,000");
    sql("UPDATE leaf_worker SET last_timestamp_ms = 10 WHERE worker_id = 0");
    assertEquals(
        Optional.empty(),
        store.renew(0, "a", TTL, 70_000, 60_000),
        "moved back below what a stored: not renewed");
    sql("UPDATE leaf_worker SET last_timestamp_ms = 0, lease_expires_ms = 0 WHERE worker_id = 0");
    assertEquals(Optional.empty(), store.renew(0, "a", TTL, 70_000, 60_000), "zeroed");
    sql("DELETE FROM leaf_worker WHERE worker_id = 0");
    assertEquals(Optional.empty(), store.renew(0, "a", TTL, 70_000, 60_000), "deleted");
  }

  private void sql(String statement) throws Exception {
    try (java.sql.Connection c = db.pool(1).getConnection();
        java.sql.Statement st = c.createStatement()) {
      st.executeUpdate(statement);
    }
  }

  @Test
  void claim_expiredLease_takenOverWithItsLastTimestamp() throws Exception {
    // Long enough that a loaded machine cannot outlast it between these three statements.
    Duration shortTtl = Duration.ofSeconds(2);
    assertTrue(store.claim(0, 0, "a", shortTtl).isPresent(), "a claims the free worker ID");
    store.renew(0, "a", shortTtl, 777, 0);
    assertEquals(Optional.empty(), store.claim(0, 0, "b", TTL), "not expired yet");
    // Expired once the database's clock passes it (some keep whole seconds): b keeps trying.
    WorkerLease b =
        Poll.value(() -> store.claim(0, 0, "b", TTL), Duration.ofSeconds(10))
            .orElseThrow(() -> new AssertionError("expired by the database's clock: b claims it"));
    assertEquals(777, b.lastTimestampMs(), "b learns where a stopped");
    assertEquals(Optional.empty(), store.renew(0, "a", TTL, 1, 0), "a lost it");
  }

  @Test
  void release_freesAtOnceWithExactLastTimestamp() {
    assertTrue(store.claim(0, 0, "a", TTL).isPresent(), "a claims the free worker ID");
    store.renew(0, "a", TTL, 9_000, 0);
    store.release(0, "a", 8_000);
    WorkerLease b = store.claim(0, 0, "b", TTL).orElseThrow();
    assertEquals(8_000, b.lastTimestampMs(), "the released value");
    store.release(0, "a", 1);
    assertEquals(
        8_000,
        store.renew(0, "b", TTL, 0, 0).orElseThrow().lastTimestampMs(),
        "a release by a former holder changes nothing");
  }

  @Test
  void claim_manyServersRacingForFewIds_eachIdOnce() throws Exception {
    int servers = 12;
    int ids = 4;
    store.createSchemaIfMissing();
    List<JooqWorkerLeaseStore> stores = new ArrayList<>();
    for (int i = 0; i < servers; i++) {
      stores.add(newStore());
    }
    ExecutorService pool = Executors.newFixedThreadPool(servers);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Optional<WorkerLease>>> claims = new ArrayList<>();
    for (int i = 0; i < servers; i++) {
      JooqWorkerLeaseStore s = stores.get(i);
      String owner = "server-" + i;
      claims.add(
          pool.submit(
              () -> {
                go.await();
                return s.claim(0, ids - 1, owner, TTL);
              }));
    }
    go.countDown();
    Set<Integer> won = new HashSet<>();
    int winners = 0;
    for (Future<Optional<WorkerLease>> f : claims) {
      Optional<WorkerLease> lease = f.get(60, TimeUnit.SECONDS);
      if (lease.isPresent()) {
        winners++;
        assertTrue(
            won.add(lease.get().workerId()),
            "worker ID " + lease.get().workerId() + " claimed twice");
      }
    }
    pool.shutdown();
    assertEquals(ids, winners, "every free ID claimed once, the rest refused");
  }
}
