package io.leaf.server.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.engine.ServerClosingException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;

class StreamMemoryTest {

  private static final int IDS = 10_000;

  /** Timers the test fires by hand. */
  private final List<Runnable> timers = new ArrayList<>();

  private final StreamMemory memory =
      new StreamMemory(
          (long) IDS * StreamMemory.BYTES_PER_ID,
          (task, nanos) -> {
            timers.add(task);
            return () -> timers.remove(task);
          },
          Duration.ofSeconds(5));

  @Test
  void budget_autoIsAQuarterAndMoreThanHalfIsRefusedNamingTheFlag() {
    assertEquals(64L << 20, StreamMemory.budget(0, 256L << 20), "auto: a quarter");
    assertEquals(128L << 20, StreamMemory.budget(128L << 20, 256L << 20), "half is allowed");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> StreamMemory.budget((128L << 20) + 1, 256L << 20));
    assertTrue(
        e.getMessage().startsWith("--max-stream-memory 134217729 is more than half"),
        e.getMessage());
    assertTrue(e.getMessage().contains("-Xmx"), e.getMessage());
  }

  @Test
  void acquire_budgetSpentAndTimerShutDown_unavailableAndNothingRegistered() {
    StreamMemory stopping =
        new StreamMemory(
            (long) IDS * StreamMemory.BYTES_PER_ID,
            (task, nanos) -> {
              throw new RejectedExecutionException("timer shut down");
            },
            Duration.ofSeconds(5));
    assertEquals(IDS, stopping.acquire(IDS, g -> {}));
    assertThrows(
        ServerClosingException.class,
        () -> stopping.acquire(1_000, g -> {}),
        "UNAVAILABLE, not an INTERNAL error");
    stopping.release(IDS);
    assertEquals(0, stopping.usedIds(), "no waiter was left behind to be granted");
  }

  @Test
  void acquire_withinBudget_grantsWhatIsAsked() {
    assertEquals(4_000, memory.acquire(4_000, g -> {}));
    assertEquals(4_000, memory.usedIds());
  }

  @Test
  void acquire_budgetShort_grantsTheRestAsASmallerChunk() {
    memory.acquire(8_500, g -> {});
    assertEquals(1_500, memory.acquire(100_000, g -> {}), "a smaller chunk rather than a wait");
    assertEquals(IDS, memory.usedIds(), "never past the budget");
  }

  @Test
  void acquire_budgetSpent_waitsAndIsGrantedInOrderOnRelease() {
    assertEquals(IDS, memory.acquire(IDS, g -> {}));
    List<String> woken = new ArrayList<>();
    assertEquals(0, memory.acquire(6_000, g -> woken.add("first " + g)));
    assertEquals(0, memory.acquire(6_000, g -> woken.add("second " + g)));
    assertEquals(0, memory.acquire(10, g -> woken.add("third " + g)), "no overtaking the queue");
    memory.release(500);
    assertTrue(woken.isEmpty(), "500 IDs is below the minimal grant: " + woken);
    memory.release(7_500);
    assertEquals(List.of("first 6000", "second 2000"), woken);
    memory.release(6_000);
    assertEquals(List.of("first 6000", "second 2000", "third 10"), woken);
    assertTrue(memory.usedIds() <= IDS, "used " + memory.usedIds());
  }

  @Test
  void cancel_waitingStream_neverGranted() {
    memory.acquire(IDS, g -> {});
    List<Integer> woken = new ArrayList<>();
    IntConsumer later = woken::add;
    assertEquals(0, memory.acquire(5_000, later));
    assertTrue(memory.cancel(later));
    assertTrue(timers.isEmpty(), "its timer is cancelled too");
    memory.release(IDS);
    assertTrue(woken.isEmpty(), "a cancelled wait is not granted");
    assertEquals(0, memory.usedIds());
    assertFalse(memory.cancel(later), "nothing left to cancel");
  }

  @Test
  void acquire_noGrantWithinTheBound_refusedWithZeroAndDropped() {
    memory.acquire(IDS, g -> {});
    List<Integer> woken = new ArrayList<>();
    assertEquals(0, memory.acquire(5_000, woken::add));
    assertEquals(1, timers.size(), "one timer per waiter");
    timers.get(0).run();
    assertEquals(List.of(0), woken, "a grant of 0: the wait timed out");
    memory.release(IDS);
    assertEquals(List.of(0), woken, "never granted after timing out");
    assertEquals(0, memory.usedIds());
  }

  @Test
  void cancel_firstInLine_nextWaiterGrantedAtOnce() {
    memory.acquire(IDS - 500, g -> {});
    IntConsumer big = g -> {};
    List<Integer> small = new ArrayList<>();
    assertEquals(0, memory.acquire(5_000, big), "500 free is below the minimal grant");
    assertEquals(0, memory.acquire(10, small::add), "10 would fit, but no overtaking the queue");
    memory.cancel(big);
    assertEquals(List.of(10), small, "the waiter behind is granted when the first leaves");
  }
}
