package io.leaf.server.sequence;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.leaf.server.ordering.JooqOrderingStore;
import io.leaf.server.ordering.TagOrdering;
import io.leaf.server.store.DataSources;
import io.leaf.server.testing.TestDatabase;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jooq.SQLDialect;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Owners of adjacent groups of a fresh tag start their terms at once, on H2, MariaDB and
 * PostgreSQL: both raises succeed (on InnoDB a range lock over missing rows once deadlocked them).
 */
class RaiseGroupConcurrencyTest {

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.leaf.server.testing.TestDatabases#all")
  void adjacentGroups_firstTermsAtOnce_bothRaise(String name, Supplier<TestDatabase> database)
      throws Exception {
    try (TestDatabase db = database.get()) {
      DataSource pool = db.pool(6);
      SQLDialect dialect = DataSources.dialectOf(db.url);
      JooqOrderingStore leases =
          new JooqOrderingStore(pool, dialect, InstantSource.system(), JooqSectionStore.LEASES);
      JooqSectionStore a = new JooqSectionStore(pool, dialect, InstantSource.system());
      JooqSectionStore b = new JooqSectionStore(pool, dialect, InstantSource.system());
      leases.createSchemaIfMissing();
      a.createSchemaIfMissing();
      ExecutorService two = Executors.newFixedThreadPool(2);
      List<String> failures = new ArrayList<>();
      int rounds = 40;
      try {
        for (int r = 0; r < rounds; r++) {
          String tag = "t" + r;
          String g0 = Sequences.leaseKey(tag, 0);
          String g1 = Sequences.leaseKey(tag, 1);
          leases.setOrdering(g0, TagOrdering.STRICT);
          leases.setOrdering(g1, TagOrdering.STRICT);
          long ea = leases.acquire(g0, "a:1", 0, Duration.ofSeconds(30)).orElseThrow();
          long eb = leases.acquire(g1, "b:1", 0, Duration.ofSeconds(30)).orElseThrow();
          CyclicBarrier start = new CyclicBarrier(2);
          Future<Map<Integer, Long>> fa =
              two.submit(
                  () -> {
                    start.await();
                    return a.raiseGroup(tag, 0, 100, "a:1", ea);
                  });
          Future<Map<Integer, Long>> fb =
              two.submit(
                  () -> {
                    start.await();
                    return b.raiseGroup(tag, 1, 100, "b:1", eb);
                  });
          for (Future<Map<Integer, Long>> f : List.of(fa, fb)) {
            try {
              f.get();
            } catch (Exception e) {
              failures.add(tag + ": " + e.getCause());
            }
          }
        }
      } finally {
        two.shutdownNow();
      }
      System.out.println(name + " failures " + failures.size() + "/" + (2 * rounds));
      failures.stream().limit(3).forEach(f -> System.out.println("  " + f));
      assertEquals(List.of(), failures, name + ": raiseGroup failed " + failures.size() + " times");
    }
  }
}
