package io.leaf.server.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.store.SegmentRange;
import io.leaf.server.testing.Blocking;
import io.leaf.server.testing.ControllableStore;
import io.leaf.server.testing.EngineThreadsFixture;
import io.leaf.server.testing.FakeTicker;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link SegmentAllocator#evict}: only the very buffer, closed, and never a reused segment. */
class SegmentAllocatorEvictionTest {

  private static final long WAIT = TimeUnit.SECONDS.toNanos(5);

  private final ControllableStore store = new ControllableStore(new MemorySegmentStore());
  private final EngineThreadsFixture threads = new EngineThreadsFixture(EngineConfig.DEFAULTS);
  private final SegmentAllocator allocator =
      new SegmentAllocator(store, new FakeTicker(), EngineConfig.DEFAULTS, threads.threads());

  @AfterEach
  void tearDown() {
    store.release();
    allocator.close();
    threads.close();
  }

  @Test
  void evict_cachedBuffer_removesAndClosesIt() {
    store.createTag("a", 1, 100, "");
    Blocking.nextId(allocator, "a", WAIT);
    TagBuffer b = allocator.cached("a").orElseThrow();

    assertTrue(allocator.evict(b), "evicts the cached buffer");

    assertTrue(b.isClosed(), "closed");
    assertFalse(allocator.cached("a").isPresent(), "no longer cached");
    assertTrue(allocator.snapshot("a").isEmpty(), "no snapshot for an evicted tag");
    assertFalse(allocator.evict(b), "a second eviction finds nothing");
  }

  @Test
  void evict_staleBufferAfterReload_leavesFreshBufferAlone() {
    store.createTag("a", 1, 100, "");
    Blocking.nextId(allocator, "a", WAIT);
    TagBuffer old = allocator.cached("a").orElseThrow();
    allocator.evict(old);
    long id = Blocking.nextId(allocator, "a", WAIT);
    TagBuffer fresh = allocator.cached("a").orElseThrow();

    assertFalse(allocator.evict(old), "the stale buffer is no longer in the map");

    assertSame(fresh, allocator.cached("a").orElseThrow(), "the fresh buffer stays cached");
    assertFalse(fresh.isClosed(), "and open");
    assertEquals(101, id, "the fresh buffer took a new segment; the old one's rest is a gap");
    assertEquals(102, Blocking.nextId(allocator, "a", WAIT), "and keeps issuing from it");
  }

  @Test
  void finishLoad_bufferEvictedWhileLoading_dropsSegmentAndWaiterRetriesOnFreshBuffer()
      throws Exception {
    store.createTag("a", 1, 100, "");
    store.blockLoads();
    CompletableFuture<Long> waiter =
        CompletableFuture.supplyAsync(() -> Blocking.nextId(allocator, "a", WAIT));
    assertTrue(store.awaitLoadEntered(5_000), "the first load started");
    TagBuffer evicted = allocator.cached("a").orElseThrow();

    assertTrue(allocator.evict(evicted), "evicted while its first load is in flight");
    store.release();
    long id = waiter.get(10, TimeUnit.SECONDS);

    assertFalse(evicted.isLoaded(), "the evicted buffer never installs the segment it loaded");
    assertEquals(
        List.of(new SegmentRange(1, 101, 100, 100), new SegmentRange(101, 201, 100, 100)),
        store.served(),
        "one segment dropped with the evicted buffer, one for the fresh buffer");
    assertEquals(101, id, "the waiter got its ID from the fresh buffer's segment");
    TagBuffer fresh = allocator.cached("a").orElseThrow();
    assertNotSame(evicted, fresh, "a fresh buffer");
    assertEquals(
        101,
        allocator.snapshot("a").orElseThrow().current().start(),
        "the fresh buffer holds only its own segment");
  }
}
