package io.leaf.server.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** H2 URLs as users write them: without {@code MODE=MySQL}, in memory. */
class H2UrlTest {

  private static JooqSegmentStore store(HikariDataSource pool, String url) {
    JooqSegmentStore store =
        new JooqSegmentStore(pool, DataSources.dialectOf(url), InstantSource.system());
    store.createSchemaIfMissing();
    return store;
  }

  @Test
  void create_fileUrlWithoutMode_createsTableAndServesSegments(@TempDir Path dir) {
    String url = "jdbc:h2:file:" + dir.resolve("leaf").toAbsolutePath();
    try (HikariDataSource pool = DataSources.create(url, "sa", "", 2)) {
      JooqSegmentStore store = store(pool, url);
      store.createTag("plain", 1, 100, "no MODE in the URL");
      assertEquals(new SegmentRange(1, 101, 100, 100),
          store.nextSegment("plain", SegmentStore.TABLE_STEP));
    }
  }

  @Test
  void create_namedMemUrl_isOneDatabaseForTheProcessLife() {
    String url = "jdbc:h2:mem:leaf_" + UUID.randomUUID().toString().replace("-", "");
    try (HikariDataSource first = DataSources.create(url, "sa", "", 2)) {
      store(first, url).createTag("kept", 1, 10, null);
    }
    // Every connection of the first pool is closed: without DB_CLOSE_DELAY=-1 H2 would have
    // dropped the database, and a restarted pool would hand out the same IDs again.
    try (HikariDataSource second = DataSources.create(url, "sa", "", 2)) {
      assertTrue(store(second, url).getTag("kept").isPresent(),
          "the tag outlives the connections that created it");
    }
  }
}
