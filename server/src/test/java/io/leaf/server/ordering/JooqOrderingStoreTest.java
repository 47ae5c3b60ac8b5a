package io.leaf.server.ordering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.store.DataSources;
import io.leaf.server.testing.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link JooqOrderingStore} on H2, MariaDB and PostgreSQL (each skipped when not reachable). */
class JooqOrderingStoreTest {

  private static final Duration TTL = Duration.ofSeconds(30);

  private static JooqOrderingStore store(TestDatabase db) {
    return new JooqOrderingStore(db.pool(8), DataSources.dialectOf(db.url), InstantSource.system());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.leaf.server.testing.TestDatabases#all")
  void renewAll_renewsOnlyLeasesStillHeld(String name, Supplier<TestDatabase> database)
      throws Exception {
    try (TestDatabase db = database.get()) {
      JooqOrderingStore s = store(db);
      s.createSchemaIfMissing();
      java.util.Map<String, Long> held = new java.util.HashMap<>();
      for (int i = 0; i < 510; i++) { // two statements' worth
        String tag = "t" + i;
        s.setOrdering(tag, TagOrdering.STRICT);
        held.put(tag, s.acquire(tag, "a:1", 0, Duration.ofSeconds(1)).orElseThrow());
      }
      s.release("t7", "a:1", held.get("t7"));
      long bEpoch = s.acquire("t7", "b:1", 0, TTL).orElseThrow(); // t7 taken by b
      s.setOrdering("t8", TagOrdering.PER_SERVER); // t8 no longer STRICT
      held.put("t9", held.get("t9") - 1); // an epoch t9's row does not hold
      java.util.Set<String> renewed = s.renewAll(held, "a:1", TTL);
      assertEquals(507, renewed.size(), "every lease but three");
      assertFalse(renewed.contains("t7") || renewed.contains("t8") || renewed.contains("t9"));
      assertTrue(s.read("t509").remainingMs() > TTL.toMillis() - 5_000, "extended to the TTL");
      assertEquals("b:1", s.read("t7").owner(), "b's lease untouched");
      assertEquals(bEpoch, s.read("t7").epoch(), "b's epoch untouched");
      assertTrue(s.read("t9").remainingMs() < 2_000, "the wrong epoch's row not extended");
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.leaf.server.testing.TestDatabases#all")
  void read_noTable_perServer(String name, Supplier<TestDatabase> database) throws Exception {
    try (TestDatabase db = database.get()) {
      JooqOrderingStore s = store(db);
      assertEquals(TagOrdering.PER_SERVER, s.read("t").ordering(), "no table: PER_SERVER");
      assertEquals(List.of(), s.readAll(), "no rows");
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.leaf.server.testing.TestDatabases#all")
  void acquire_renew_release_followTheRules(String name, Supplier<TestDatabase> database)
      throws Exception {
    try (TestDatabase db = database.get()) {
      JooqOrderingStore s = store(db);
      s.createSchemaIfMissing();
      s.createSchemaIfMissing();
      assertEquals(OptionalLong.empty(), s.acquire("t", "a:1", 0, TTL), "no row: not STRICT");
      s.setOrdering("t", TagOrdering.STRICT);
      long epoch = s.acquire("t", "a:1", 0, TTL).orElseThrow();
      assertEquals(OptionalLong.empty(), s.acquire("t", "b:1", 0, TTL), "held by a");
      LeaseRow row = s.read("t");
      assertEquals("a:1", row.owner(), "a owns it");
      assertTrue(row.remainingMs() > TTL.toMillis() - 5_000, "by the database's clock: " + row);
      assertTrue(s.renew("t", "a:1", epoch, TTL), "a renews its own epoch");
      assertFalse(s.renew("t", "b:1", epoch, TTL), "b cannot");
      assertFalse(s.renew("t", "a:1", epoch - 1, TTL), "nor an older epoch");
      s.release("t", "a:1", epoch);
      long next = s.acquire("t", "b:1", 0, TTL).orElseThrow();
      assertTrue(next > epoch, "a new epoch for b");
      assertFalse(s.renew("t", "a:1", epoch, TTL), "a's term is over");
      s.setOrdering("t", TagOrdering.PER_SERVER);
      assertFalse(s.renew("t", "b:1", next, TTL), "not STRICT any more");
      assertEquals("b:1", s.read("t").owner(), "the ordering change keeps the owner");
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.leaf.server.testing.TestDatabases#all")
  void acquire_sameAddress_onlyWithTheEpochHeld(String name, Supplier<TestDatabase> database)
      throws Exception {
    try (TestDatabase db = database.get()) {
      JooqOrderingStore s = store(db);
      s.createSchemaIfMissing();
      s.setOrdering("t", TagOrdering.STRICT);
      long epoch = s.acquire("t", "a:1", 0, TTL).orElseThrow();
      // Another process advertising a:1 (or a:1 restarted) holds no epoch: it waits for expiry.
      assertEquals(OptionalLong.empty(), s.acquire("t", "a:1", 0, TTL), "a twin of a:1");
      assertEquals(
          OptionalLong.empty(), s.acquire("t", "a:1", epoch - 1, TTL), "an older epoch of a:1");
      long again = s.acquire("t", "a:1", epoch, TTL).orElseThrow();
      assertTrue(again > epoch, "the holder itself takes its lease again, with a new epoch");
      assertFalse(s.renew("t", "a:1", epoch, TTL), "the old epoch is over");
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.leaf.server.testing.TestDatabases#all")
  void acquire_concurrent_oneWinner(String name, Supplier<TestDatabase> database) throws Exception {
    try (TestDatabase db = database.get()) {
      JooqOrderingStore s = store(db);
      s.createSchemaIfMissing();
      s.setOrdering("t", TagOrdering.STRICT);
      ExecutorService pool = Executors.newFixedThreadPool(6);
      try {
        List<Future<OptionalLong>> tries = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
          String owner = "s" + i + ":1";
          tries.add(pool.submit(() -> s.acquire("t", owner, 0, TTL)));
        }
        int winners = 0;
        for (Future<OptionalLong> f : tries) {
          winners += f.get().isPresent() ? 1 : 0;
        }
        assertEquals(1, winners, "one owner at a time");
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.leaf.server.testing.TestDatabases#all")
  void acquire_expiredByDatabaseClock_takenOver(String name, Supplier<TestDatabase> database)
      throws Exception {
    try (TestDatabase db = database.get()) {
      JooqOrderingStore s = store(db);
      s.createSchemaIfMissing();
      s.setOrdering("t", TagOrdering.STRICT);
      long epoch = s.acquire("t", "a:1", 0, TTL).orElseThrow();
      try (Connection c = db.pool(1).getConnection();
          Statement st = c.createStatement()) {
        st.executeUpdate("UPDATE leaf_tag_lease SET lease_expires_ms = 1");
      }
      assertTrue(s.acquire("t", "b:1", 0, TTL).orElseThrow() > epoch, "expired: b takes it");
    }
  }
}
