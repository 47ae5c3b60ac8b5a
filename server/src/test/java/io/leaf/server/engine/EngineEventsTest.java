package io.leaf.server.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.store.TagNotFoundException;
import io.leaf.server.testing.EngineThreadsFixture;
import io.leaf.server.testing.FakeTicker;
import io.leaf.server.testing.ManualExecutor;
import io.leaf.server.testing.ManualTimer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** What the allocator reports through {@link EngineEvents}, and what it does not. */
class EngineEventsTest {

  /** Records every event as a short string. */
  private static final class Recording implements EngineEvents {
    final List<String> events = new CopyOnWriteArrayList<>();

    /** Kept apart: a wait is reported while its load may already be running. */
    final AtomicInteger waits = new AtomicInteger();

    @Override
    public void segmentWaited() {
      waits.incrementAndGet();
    }

    @Override
    public void segmentLoaded(boolean first, long nanos, RuntimeException failure) {
      events.add(
          (first ? "first " : "served ")
              + (failure == null ? "loaded" : failure.getClass().getSimpleName()));
    }

    @Override
    public void missingTagHit() {
      events.add("missing hit");
    }
  }

  @Test
  void loads_firstThenPreload_reportedWithKind() throws Exception {
    MemorySegmentStore store = new MemorySegmentStore();
    store.createTag("t", 1, 10, "");
    Recording recording = new Recording();
    FakeTicker ticker = new FakeTicker();
    ManualExecutor loads = new ManualExecutor();
    try (EngineThreadsFixture threads =
            EngineThreadsFixture.manual(loads, new ManualTimer(ticker));
        SegmentAllocator allocator =
            new SegmentAllocator(
                store,
                ticker,
                EngineConfig.DEFAULTS,
                threads.threads(),
                EngineListeners.NONE.withEvents(recording))) {
      WaitDeadline deadline = allocator.deadline(TimeUnit.SECONDS.toNanos(5), false);
      CompletableFuture<Long> first = allocator.nextId("t", deadline);
      assertEquals(1, loads.runAll(), "the first call started the first load");
      assertEquals(1L, first.join(), "answered by it");
      int before = recording.events.size();
      for (int i = 0; i < 8; i++) {
        // Buffered IDs report nothing; passing 10% of the segment starts the preload.
        allocator.tryNextId("t");
      }
      assertEquals(1, loads.runAll(), "the buffered IDs started one preload");
      assertEquals(1, before, "only the first load before the buffered IDs: " + recording.events);
      assertEquals(
          List.of("first loaded", "served loaded"),
          recording.events,
          "the first load, then the preload of a served tag");
      assertEquals(1, recording.waits.get(), "the first call waited; the buffered ones did not");
    }
  }

  @Test
  void unknownTag_secondCall_missingHitReported() {
    Recording recording = new Recording();
    try (EngineThreadsFixture threads = new EngineThreadsFixture(EngineConfig.DEFAULTS);
        SegmentAllocator allocator =
            new SegmentAllocator(
                new MemorySegmentStore(),
                new FakeTicker(),
                EngineConfig.DEFAULTS.withMissingTagTtl(Duration.ofMinutes(1)),
                threads.threads(),
                EngineListeners.NONE.withEvents(recording))) {
      for (int i = 0; i < 2; i++) {
        WaitDeadline deadline = allocator.deadline(TimeUnit.SECONDS.toNanos(5), false);
        CompletionException e =
            assertThrows(
                CompletionException.class,
                () -> allocator.nextId("ghost", deadline).join(),
                "unknown tag");
        assertTrue(e.getCause() instanceof TagNotFoundException, e.toString());
      }
      assertEquals(
          List.of("first TagNotFoundException", "missing hit"),
          recording.events,
          "one load finds no tag, the next call is answered from memory");
    }
  }
}
