package io.leaf.server.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.leaf.client.FailedPreconditionException;
import io.leaf.client.LeafClient;
import io.leaf.client.TagNotFoundException;
import io.leaf.server.ledger.LedgerSettings;
import io.leaf.server.testing.InProcessLeaf;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import io.leaf.v1.IssuedRange;
import java.time.Duration;
import java.time.InstantSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link LeafClient#whoIssued} against the real service over an H2 ledger. */
class LeafClientWhoIssuedTest {

  private TestDatabase db;
  private InProcessLeaf leaf;
  private LeafClient client;

  @AfterEach
  void tearDown() throws Exception {
    if (client != null) {
      client.close();
    }
    if (leaf != null) {
      leaf.close();
    }
    if (db != null) {
      db.close();
    }
  }

  private void start(LedgerSettings ledger) throws Exception {
    db = TestDatabases.h2();
    leaf = new InProcessLeaf(db.store(4, ledger, InstantSource.system()));
    client = LeafClient.forChannel(leaf.channel).deadline(Duration.ofSeconds(10)).build();
  }

  @Test
  void whoIssued_anIdItGot_theSegmentAndTheServer() throws Exception {
    start(LedgerSettings.on("host:50051/7-abc123"));
    client.createTag("order", 1, 50, null);
    long id = client.nextId("order");

    IssuedRange r = client.whoIssued("order", id);
    assertEquals(1, r.getStart());
    assertEquals(51, r.getEnd());
    assertEquals("segment", r.getKind());
    assertEquals("host:50051/7-abc123", r.getServer());
    assertThrows(TagNotFoundException.class, () -> client.whoIssued("order", 51));
  }

  @Test
  void whoIssued_ledgerOff_failedPrecondition() throws Exception {
    start(LedgerSettings.OFF);
    client.createTag("order", 1, 50, null);
    long id = client.nextId("order");

    assertThrows(FailedPreconditionException.class, () -> client.whoIssued("order", id));
  }
}
