package io.leaf.server.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.testing.ControllableStore;
import io.leaf.server.testing.FakeTicker;
import io.leaf.server.testing.ManualTimer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link SegmentAllocator#close()} on threads it was handed: waiting calls fail at once, and a load
 * its maker's executor still runs afterwards never reaches the store. The loads here queue until
 * the test runs them, so no thread or sleep is involved.
 */
class SegmentAllocatorCloseTest {

  private static final long WAIT = TimeUnit.SECONDS.toNanos(10);

  private final FakeTicker ticker = new FakeTicker();
  private final MemorySegmentStore memory = new MemorySegmentStore();
  private final ControllableStore store = new ControllableStore(memory);
  private final List<Runnable> firstLoads = new ArrayList<>();
  private final List<Runnable> loads = new ArrayList<>();
  private final SegmentAllocator allocator =
      new SegmentAllocator(
          store,
          ticker,
          EngineConfig.DEFAULTS,
          new EngineThreads(loads::add, firstLoads::add, new ManualTimer(ticker)));

  @Test
  void close_firstLoadQueued_callFailsClosingAndTheLoadNeverAsksTheStore() {
    memory.createTag("t", 1, 10, null);
    CompletableFuture<Long> call = allocator.nextId("t", allocator.deadline(WAIT, false));
    assertFalse(call.isDone(), "waits for the first load");
    assertEquals(1, firstLoads.size(), "one first load handed to the executor");

    allocator.close();
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> call.get(0, TimeUnit.SECONDS));
    firstLoads.forEach(Runnable::run);

    assertTrue(e.getCause() instanceof ServerClosingException, e.toString());
    assertEquals(0, store.attempts(), "a load run after close does not touch the store");
    assertTrue(loads.isEmpty(), "nothing else was started");
  }

  @Test
  void close_thenNextId_refusedAsClosingWithoutALoad() {
    memory.createTag("t", 1, 10, null);
    allocator.close();

    CompletableFuture<Long> call = allocator.nextId("t", allocator.deadline(WAIT, false));

    ExecutionException e =
        assertThrows(ExecutionException.class, () -> call.get(0, TimeUnit.SECONDS));
    assertTrue(e.getCause() instanceof ServerClosingException, e.toString());
    assertTrue(firstLoads.isEmpty() && loads.isEmpty(), "no load handed to the executors");
  }
}
