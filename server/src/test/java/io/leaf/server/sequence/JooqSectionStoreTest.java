package io.leaf.server.sequence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.ordering.JooqOrderingStore;
import io.leaf.server.ordering.TagOrdering;
import io.leaf.server.store.DataSources;
import io.leaf.server.testing.TestDatabase;
import java.time.Duration;
import java.time.InstantSource;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jooq.SQLDialect;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link JooqSectionStore} on H2, MariaDB and PostgreSQL (each skipped when not reachable). */
class JooqSectionStoreTest {

  private static final Duration TTL = Duration.ofSeconds(30);

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.leaf.server.testing.TestDatabases#all")
  void raise_fencedByTheLeaseAndTheCeilingRead(String name, Supplier<TestDatabase> database)
      throws Exception {
    try (TestDatabase db = database.get()) {
      DataSource pool = db.pool(4);
      SQLDialect dialect = DataSources.dialectOf(db.url);
      JooqOrderingStore leases =
          new JooqOrderingStore(pool, dialect, InstantSource.system(), JooqSectionStore.LEASES);
      JooqSectionStore s = new JooqSectionStore(pool, dialect, InstantSource.system());
      leases.createSchemaIfMissing();
      String g = Sequences.leaseKey("t", 0); // the lease of sections 0-63
      leases.setOrdering(g, TagOrdering.STRICT);
      long a = leases.acquire(g, "a:1", 0, TTL).orElseThrow();
      assertEquals(0, s.ceiling("t", 7), "no row: ceiling 0 (the table made on first use)");
      assertFalse(s.raise("t", 7, 0, 100, "b:1", a), "b holds no lease: no row made");
      assertFalse(s.raise("t", 7, 0, 100, "a:1", a + 1), "nor another epoch");
      assertFalse(s.raise("t", 64, 0, 100, "a:1", a), "nor a section of another group");
      assertEquals(0, s.ceiling("t", 7), "nothing written");
      assertTrue(s.raise("t", 7, 0, 100, "a:1", a), "the owner makes the row");
      assertFalse(s.raise("t", 7, 0, 200, "a:1", a), "a second first raise loses");
      assertFalse(s.raise("t", 7, 50, 200, "a:1", a), "a raise from a ceiling not read loses");
      assertTrue(s.raise("t", 7, 100, 200, "a:1", a), "from the ceiling read it wins");
      assertEquals(200, s.ceiling("t", 7), "raised");
      assertEquals(0, s.ceiling("t", 8), "sections apart");
      leases.release(g, "a:1", a);
      long b = leases.acquire(g, "b:1", 0, TTL).orElseThrow();
      assertFalse(s.raise("t", 7, 200, 300, "a:1", a), "the deposed owner's raise is refused");
      assertTrue(s.raise("t", 7, 200, 300, "b:1", b), "the new owner's holds");
      assertEquals(300, s.ceiling("t", 7), "raised by b");
      assertTrue(s.raise("t", 9, 0, 100, "b:1", b), "another section");
      assertEquals(
          java.util.Map.of(), s.raiseGroup("t", 0, 50, "a:1", a), "the deposed owner raises none");
      assertEquals(java.util.Map.of(), s.raiseGroup("t", 1, 50, "b:1", b), "nor b another group");
      java.util.Map<Integer, Long> all = s.raiseGroup("t", 0, 50, "b:1", b);
      assertEquals(64, all.size(), "every section of the group, rows made: " + all);
      assertEquals(350L, all.get(7), "section 7 from 300");
      assertEquals(150L, all.get(9), "section 9 from 100");
      assertEquals(50L, all.get(0), "section 0 from nothing");
      assertEquals(0, s.ceiling("t", 64), "the next group's sections untouched");
      String g1 = Sequences.leaseKey("t", 1);
      leases.setOrdering(g1, TagOrdering.STRICT);
      long b1 = leases.acquire(g1, "b:1", 0, TTL).orElseThrow();
      assertFalse(s.raise("t", 65, 0, 100, "a:1", a), "a row made at 0 stays fenced");
      assertTrue(s.raise("t", 64, 0, 100, "b:1", b1), "a row made at 0 raises from 0");
      assertEquals(100, s.ceiling("t", 64), "raised by group 1's owner");
      assertEquals(350, s.ceiling("t", 7), "stored");
    }
  }
}
