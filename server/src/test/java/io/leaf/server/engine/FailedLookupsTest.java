package io.leaf.server.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.store.ForwardingSegmentStore;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.store.StoreRejectedException;
import io.leaf.server.store.TagNotFoundException;
import io.leaf.server.testing.Blocking;
import io.leaf.server.testing.ControllableStore;
import io.leaf.server.testing.EngineThreadsFixture;
import io.leaf.server.testing.FakeTicker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A tag whose first load failed holds no buffer, reaches no idle sweeper and is remembered only for
 * its back-off, at most {@code --missing-tag-ttl}, with no exception object; names the store says
 * the table cannot hold are NOT_FOUND without a load.
 */
class FailedLookupsTest {

  private static final long WAIT = TimeUnit.SECONDS.toNanos(10);
  private static final Duration TTL = Duration.ofSeconds(2);

  private final FakeTicker ticker = new FakeTicker();
  private final MemorySegmentStore memory = new MemorySegmentStore();
  private final ControllableStore store = new ControllableStore(memory);
  private final List<TagBuffer> handedToSweeper = new CopyOnWriteArrayList<>();
  private final EngineThreadsFixture threads = new EngineThreadsFixture(EngineConfig.DEFAULTS);
  private SegmentAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator =
        new SegmentAllocator(
            store,
            ticker,
            EngineConfig.DEFAULTS
                .withBackoff(Duration.ofMillis(100), Duration.ofSeconds(5))
                .withMissingTagTtl(TTL),
            threads.threads(),
            EngineListeners.NONE.withOnCached(handedToSweeper::add));
  }

  @AfterEach
  void tearDown() {
    store.release();
    allocator.close();
    threads.close();
  }

  @Test
  void firstLoadRefused_manyNames_noBufferHeldAndNoneReachesTheSweeper() {
    memory.createTag("known", 1, 10, null);
    assertEquals(1, Blocking.nextId(allocator, "known", WAIT));
    StoreRejectedException refusal =
        new StoreRejectedException(
            "the database refused to take a" + " segment: Illegal mix of collations", null);
    store.failLoadsWith(refusal);
    for (int i = 0; i < 50; i++) {
      String name = "name-" + i;
      StoreRejectedException e =
          assertThrows(StoreRejectedException.class, () -> Blocking.nextId(allocator, name, WAIT));
      assertTrue(e.getMessage().contains("Illegal mix of collations"), e.getMessage());
    }
    assertEquals(List.of("known"), allocator.cachedTags(100), "failed lookups hold no buffer");
    assertEquals(1, allocator.cachedCount(), "tags held counts the known tag only");
    assertEquals(
        List.of("known"),
        handedToSweeper.stream().map(TagBuffer::bizTag).toList(),
        "no failed lookup waits out --idle-ttl in the sweeper");
  }

  @Test
  void firstLoadRefused_answeredFromMemoryDuringBackoffWithAFreshException() {
    StoreRejectedException refusal = new StoreRejectedException("refused: no privilege", null);
    store.failLoadsWith(refusal);
    StoreRejectedException first =
        assertThrows(StoreRejectedException.class, () -> Blocking.nextId(allocator, "t", WAIT));
    StoreRejectedException again =
        assertThrows(StoreRejectedException.class, () -> Blocking.nextId(allocator, "t", WAIT));
    assertEquals(1, store.attempts(), "answered from memory during the back-off");
    assertEquals(refusal.getMessage(), again.getMessage());
    assertNotSame(first, again, "no exception object is kept for the name");
    ticker.advance(Duration.ofMillis(100));
    assertThrows(StoreRejectedException.class, () -> Blocking.nextId(allocator, "t", WAIT));
    assertEquals(2, store.attempts(), "loaded again once the back-off passed");
  }

  @Test
  void firstLoadsFailing_backoffNeverOutlivesTheMissingTagTtl() {
    store.failLoads();
    // Each retry comes as soon as the back-off allows: 100, 200, 400, 800 ms, then capped at
    // half the TTL, so that the entry outlives its back-off and the count goes on.
    for (int i = 0; i < 6; i++) {
      assertThrows(RuntimeException.class, () -> Blocking.nextId(allocator, "t", WAIT));
      ticker.advance(Duration.ofMillis(Math.min(100L << i, TTL.toMillis() / 2)));
    }
    assertEquals(6, store.attempts(), "one load per back-off");
    assertThrows(RuntimeException.class, () -> Blocking.nextId(allocator, "t", WAIT));
    RuntimeException fast =
        assertThrows(RuntimeException.class, () -> Blocking.nextId(allocator, "t", WAIT));
    assertEquals(7, store.attempts());
    assertTrue(
        fast.getMessage().contains("next database attempt in 1000 ms"),
        "the back-off of a tag never loaded is capped at half of --missing-tag-ttl, not at"
            + " --max-backoff's 5 s: "
            + fast.getMessage());
    ticker.advance(TTL);
    store.heal();
    memory.createTag("t", 1, 10, null);
    assertEquals(1, Blocking.nextId(allocator, "t", WAIT), "forgotten after the TTL");
  }

  @Test
  void nameTheTableCannotHold_notFoundWithoutALoad() {
    SegmentAllocator narrow =
        new SegmentAllocator(
            new ForwardingSegmentStore(store) {
              @Override
              public boolean mayHold(String bizTag) {
                return bizTag.chars().allMatch(c -> c < 0x80);
              }
            },
            ticker,
            EngineConfig.DEFAULTS,
            threads.threads());
    try {
      for (int i = 0; i < 1000; i++) {
        String name = "订单" + i;
        TagNotFoundException e =
            assertThrows(TagNotFoundException.class, () -> Blocking.nextId(narrow, name, WAIT));
        assertTrue(e.getMessage().contains("biz_tag not found: " + name), e.getMessage());
      }
      assertEquals(0, store.attempts(), "no load");
      assertEquals(0, narrow.cachedCount(), "nothing held");
    } finally {
      narrow.close();
    }
  }
}
