package io.leaf.server.region;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.store.DataSources;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import java.sql.Connection;
import java.sql.Statement;
import java.time.InstantSource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A region claimed on a fresh database while a server without {@code --region} writes its first
 * row: the claim waits for that write and then refuses, instead of recording a region over IDs
 * issued without one.
 */
class RegionClaimRaceTest {

  private TestDatabase db;

  @AfterEach
  void tearDown() throws Exception {
    if (db != null) {
      db.close();
    }
  }

  @Test
  void claim_rowWrittenWithoutRegionInFlight_waitsAndRefuses_mariaDb() throws Exception {
    claimDuringFirstWrite(TestDatabases.mariaDb());
  }

  @Test
  void claim_rowWrittenWithoutRegionInFlight_waitsAndRefuses_postgres() throws Exception {
    claimDuringFirstWrite(TestDatabases.postgres());
  }

  @Test
  void claim_noLeafAllocTable_recorded() throws Exception {
    for (TestDatabase each :
        new TestDatabase[] {TestDatabases.mariaDb(), TestDatabases.postgres()}) {
      try (TestDatabase d = each) {
        JooqRegionStore regions =
            new JooqRegionStore(d.pool(1), DataSources.dialectOf(d.url), InstantSource.system());
        RegionCheck.verify(Region.parse("1/2"), regions);
        assertTrue(regions.read().isPresent(), d.url);
      }
    }
  }

  private void claimDuringFirstWrite(TestDatabase database) throws Exception {
    db = database;
    db.store(1); // the schema
    JooqRegionStore regions =
        new JooqRegionStore(db.pool(2), DataSources.dialectOf(db.url), InstantSource.system());
    try (Connection take = db.pool(2).getConnection()) {
      take.setAutoCommit(false);
      try (Statement st = take.createStatement()) {
        st.executeUpdate(
            "INSERT INTO leaf_alloc (biz_tag, max_id, step, update_time)"
                + " VALUES ('order', 1001, 1000, 0)");
      }
      CompletableFuture<Void> claim =
          CompletableFuture.runAsync(() -> RegionCheck.verify(Region.parse("1/2"), regions));
      assertThrows(
          TimeoutException.class,
          () -> claim.get(700, TimeUnit.MILLISECONDS),
          "the claim waits for the write in flight");
      take.commit();
      ExecutionException e =
          assertThrows(ExecutionException.class, () -> claim.get(20, TimeUnit.SECONDS));
      assertInstanceOf(RegionMismatchException.class, e.getCause(), e.toString());
      assertTrue(e.getCause().getMessage().contains("already holds"), e.getCause().getMessage());
    }
    assertFalse(regions.read().isPresent(), "no region recorded over IDs issued without one");
  }
}
