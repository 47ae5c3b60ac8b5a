package io.leaf.server.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.engine.EngineConfig;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.testing.FakeTicker;
import io.leaf.server.testing.InProcessLeaf;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.TagStatus;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The sweeper inside a running LeafServer, seen through the in-process gRPC API. */
class IdleTagSweeperServerTest {

  private final FakeTicker ticker = new FakeTicker();
  private InProcessLeaf leaf;

  @BeforeEach
  void setUp() throws Exception {
    leaf =
        new InProcessLeaf(
            new MemorySegmentStore(),
            ticker,
            EngineConfig.DEFAULTS,
            "--idle-ttl",
            "10s",
            "--sweep-tick",
            "1s");
  }

  @AfterEach
  void tearDown() throws Exception {
    leaf.close();
  }

  private long nextId(String tag) {
    return leaf.blocking.nextId(NextIdRequest.newBuilder().setBizTag(tag).build()).getId();
  }

  private TagStatus getTag(String tag) {
    return leaf.blocking.getTag(GetTagRequest.newBuilder().setBizTag(tag).build());
  }

  @Test
  void getTag_afterIdleTtl_showsNotCachedAndNextIdReloadsWithLargerIds() {
    leaf.blocking.createTag(CreateTagRequest.newBuilder().setBizTag("order").setStep(20).build());
    long highest = 0;
    for (int i = 0; i < 30; i++) {
      highest = Math.max(highest, nextId("order"));
    }
    assertTrue(getTag("order").getCached(), "cached after NextId");
    IdleTagSweeper sweeper = leaf.server.sweeper();
    // The sweeper thread also runs with the fake clock; either run leads to the same state.
    sweeper.runOnce(ticker.read());

    ticker.advance(Duration.ofSeconds(12));
    sweeper.runOnce(ticker.read());

    TagStatus evicted = getTag("order");
    assertFalse(evicted.getCached(), "not cached after the idle TTL: " + evicted);
    assertFalse(evicted.hasCurrent(), "no current segment after eviction: " + evicted);
    assertEquals(1, sweeper.evictions(), "one eviction");
    assertEquals(0, leaf.allocator.cachedCount(), "the allocator holds nothing");

    long next = nextId("order");

    assertTrue(next > highest, "after eviction " + next + " must exceed " + highest);
    assertTrue(getTag("order").getCached(), "cached again after NextId");
  }

  @Test
  void stop_runningServer_endsSweeperThread() throws Exception {
    IdleTagSweeper sweeper = leaf.server.sweeper();
    assertTrue(sweeper.isRunning(), "the sweeper thread starts with the server");

    leaf.close();

    assertFalse(sweeper.isRunning(), "the sweeper thread has ended once stop() returns");
  }
}
