package io.leaf.server.region;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.grpc.inprocess.InProcessServerBuilder;
import io.leaf.server.LeafServer;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.store.SegmentRange;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.wiring.LeafServerBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * On H2, MariaDB and PostgreSQL: the first server of a fresh database records its region, and a
 * later server whose {@code --region} differs (another r, another n, or none) is refused at start
 * with one line; a table that issued without regions is taken over by region 0 only.
 */
class StoredRegionRefusalTest {

  private final List<LeafServer> started = new ArrayList<>();

  /** A started server of the production wiring on {@code db} with {@code region} ("": none). */
  private LeafServer start(TestDatabase db, String region) throws Exception {
    ServerConfig config =
        ServerConfig.parse(
            new String[] {
              "--db-url",
              db.url,
              "--db-user",
              db.user,
              "--db-password",
              db.password,
              "--db-pool-size",
              "1",
              "--region",
              region
            },
            env -> null);
    LeafServer server =
        LeafServerBuilder.forConfig(config)
            .transport(InProcessServerBuilder.forName(InProcessServerBuilder.generateName()))
            .build()
            .start();
    started.add(server);
    return server;
  }

  private void assertRefused(TestDatabase db, String region, String reason) {
    RegionMismatchException e =
        assertThrows(RegionMismatchException.class, () -> start(db, region), "--region " + region);
    assertEquals(reason, e.getMessage());
  }

  private void stopAll() {
    started.forEach(LeafServer::stop);
    started.clear();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.leaf.server.testing.TestDatabases#all")
  @Timeout(120)
  void freshDatabase_firstServerRecordsRegion_othersRefused(
      String product, Supplier<TestDatabase> database) throws Exception {
    try (TestDatabase db = database.get()) {
      LeafServer first = start(db, "1/2");
      first.store().createTag("order", 1, 100, null);
      SegmentRange before = first.store().nextSegment("order", SegmentStore.TABLE_STEP);
      stopAll();

      assertRefused(
          db, "0/2", "--region 0/2 contradicts the database's region 1/2 (table" + " leaf_region)");
      assertRefused(
          db,
          "1/4",
          "--region 1/4 contradicts the database's region 1/2 (table"
              + " leaf_region): every server of every region uses the same n");
      assertRefused(
          db,
          "",
          "the database issues region 1/2's IDs (table leaf_region): start"
              + " this server with --region 1/2");

      LeafServer again = start(db, "1/2");
      assertEquals(
          new SegmentRange(before.end(), before.end() + 100, 100, 100),
          again.store().nextSegment("order", SegmentStore.TABLE_STEP),
          "the same region continues where it stopped");
      assertEquals((1L << 62) + 1, before.start());
    } finally {
      stopAll();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.leaf.server.testing.TestDatabases#all")
  @Timeout(120)
  void tableIssuedWithoutRegions_onlyRegion0TakesItOver(
      String product, Supplier<TestDatabase> database) throws Exception {
    try (TestDatabase db = database.get()) {
      LeafServer plain = start(db, "");
      plain.store().createTag("order", 5000, 100, null);
      plain.store().nextSegment("order", SegmentStore.TABLE_STEP);
      stopAll();

      assertRefused(
          db,
          "1/2",
          "--region 1/2: leaf_alloc already holds IDs issued without a"
              + " region (tag order at max_id 5100); only region 0 can take over such a table"
              + " (docs/regions.md)");
      LeafServer region0 = start(db, "0/2");
      assertEquals(
          new SegmentRange(5100, 5200, 100, 100),
          region0.store().nextSegment("order", SegmentStore.TABLE_STEP),
          "region 0 continues the table's own numbers");
      stopAll();
      assertRefused(
          db,
          "",
          "the database issues region 0/2's IDs (table leaf_region): start"
              + " this server with --region 0/2");
    } finally {
      stopAll();
    }
  }
}
