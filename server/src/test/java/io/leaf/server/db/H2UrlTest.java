package io.leaf.server.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.leaf.server.store.DataSources;
import io.leaf.server.store.JooqSegmentStore;
import io.leaf.server.store.SegmentRange;
import io.leaf.server.store.SegmentStore;
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
      assertEquals(
          new SegmentRange(1, 101, 100, 100), store.nextSegment("plain", SegmentStore.TABLE_STEP));
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
      assertTrue(
          store(second, url).getTag("kept").isPresent(),
          "the tag outlives the connections that created it");
    }
  }

  @Test
  void exclusive_autoServerOnAsH2ReadsIt_notExclusive() {
    for (String on : new String[] {"TRUE", "true", "YES", "yes", "1"}) {
      assertFalse(
          H2Url.exclusive("jdbc:h2:file:/tmp/leaf;AUTO_SERVER=" + on),
          "AUTO_SERVER=" + on + " lets other processes in");
    }
    assertTrue(H2Url.exclusive("jdbc:h2:file:/tmp/leaf;AUTO_SERVER=FALSE"), "AUTO_SERVER off");
    assertTrue(H2Url.exclusive("jdbc:h2:file:/tmp/leaf;auto_server=0"), "AUTO_SERVER=0");
  }

  @Test
  void exclusive_fileLockNoAnyCase_notExclusive() {
    assertFalse(H2Url.exclusive("jdbc:h2:file:/tmp/leaf;FILE_LOCK=NO"), "FILE_LOCK=NO");
    assertFalse(H2Url.exclusive("jdbc:h2:/tmp/leaf;file_lock=no"), "file_lock=no");
    assertTrue(H2Url.exclusive("jdbc:h2:file:/tmp/leaf;FILE_LOCK=FILE"), "FILE_LOCK=FILE");
  }

  @Test
  void exclusive_memOrServerUrl_notExclusive() {
    assertFalse(H2Url.exclusive("jdbc:h2:mem:leaf"), "every server of the JVM shares mem:");
    assertFalse(H2Url.exclusive("jdbc:h2:MEM:leaf"), "the prefix in any case");
    assertFalse(H2Url.exclusive("jdbc:h2:tcp://localhost/leaf"), "behind an H2 server");
    assertTrue(H2Url.exclusive("jdbc:h2:file:/tmp/leaf"), "a plain embedded file");
  }
}
