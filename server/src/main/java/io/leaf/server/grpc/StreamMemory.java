package io.leaf.server.grpc;

import io.leaf.server.engine.ServerClosingException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiFunction;
import java.util.function.IntConsumer;

/**
 * The memory the chunks in flight of every open batch stream may hold together ({@code
 * --max-stream-memory}), so unread streams can never hold more than the budget, whatever their
 * number and chunk size.
 *
 * <p>It is counted in units of {@link #BYTES_PER_ID} bytes (one per ID): a stream asks before it
 * takes a chunk's IDs and gives them back once the transport took the chunk (the call is ready
 * again) or the stream ended. A stream that finds the budget short gets a smaller chunk (chunk_size
 * is a maximum), and one that finds it spent waits, without a thread, until another stream gives
 * some back, at most the maximum wait, after which it is refused.
 *
 * <p>Cost: one short synchronized section per chunk. Thread-safe.
 */
final class StreamMemory {

  /**
   * Bytes an ID of a chunk in flight costs at most: up to 10 bytes of varint on the wire, counted
   * twice for the transport's buffer rounding and the message built before it.
   */
  static final int BYTES_PER_ID = 20;

  /** A stream is not woken for less than this many IDs (unless it needs fewer). */
  static final int MIN_GRANT = 1_000;

  private final long capacity;
  private long used;
  private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
  private final BiFunction<Runnable, Long, Runnable> timer;
  private final long maxWaitNanos;

  private record Waiter(int want, IntConsumer granted, Runnable cancelTimer) {}

  /**
   * @param bytes the budget; at least enough for one minimal chunk
   * @param timer schedules a task after a delay in nanoseconds and returns its cancel
   * @param maxWait longest a stream waits for memory; then it gets a grant of 0 (refused)
   */
  StreamMemory(long bytes, BiFunction<Runnable, Long, Runnable> timer, Duration maxWait) {
    this.capacity = Math.max(bytes / BYTES_PER_ID, MIN_GRANT);
    this.timer = timer;
    this.maxWaitNanos = maxWait.toNanos();
  }

  /** The flag that sets the budget, named by a refusal. */
  static final String FLAG = "--max-stream-memory";

  /**
   * The budget {@code requested} by {@value #FLAG} (0: auto) on this JVM, whose heap and direct
   * memory limit what streams may hold.
   */
  static StreamMemory forThisJvm(
      long requested, BiFunction<Runnable, Long, Runnable> timer, Duration maxWait) {
    return new StreamMemory(budget(requested, jvmLimit()), timer, maxWait);
  }

  /** The smaller of the heap and the direct-memory limit, as this JVM reports them. */
  static long jvmLimit() {
    long heap = Runtime.getRuntime().maxMemory();
    long direct = io.grpc.netty.shaded.io.netty.util.internal.PlatformDependent.maxDirectMemory();
    return direct > 0 ? Math.min(heap, direct) : heap;
  }

  /**
   * The budget in bytes: auto ({@code requested} 0) is a quarter of {@code jvmLimit} (the smaller
   * of the heap and the direct-memory limit), so that every stream unread at once leaves the rest
   * of both to everything else; more than half of it is refused, since unread streams could then
   * exhaust the memory other calls need.
   *
   * @throws IllegalArgumentException {@code requested} is more than half of {@code jvmLimit}
   */
  static long budget(long requested, long jvmLimit) {
    if (requested == 0) {
      return jvmLimit / 4;
    }
    if (requested > jvmLimit / 2) {
      throw new IllegalArgumentException(
          FLAG
              + " "
              + requested
              + " is more than half of the"
              + " memory this JVM has for it ("
              + jvmLimit
              + " bytes, the smaller of the heap and the"
              + " direct-memory limit); raise -Xmx (and -XX:MaxDirectMemorySize if set) or lower "
              + FLAG);
    }
    return requested;
  }

  long capacityBytes() {
    return capacity * BYTES_PER_ID;
  }

  /** The budget in IDs (the limit a refusal names). */
  int capacityIds() {
    return (int) Math.min(capacity, Integer.MAX_VALUE);
  }

  synchronized long usedIds() {
    return used;
  }

  /**
   * Up to {@code want} IDs' worth now, or 0 when the budget is spent: then {@code later} receives
   * the grant once there is one (on the thread of the stream that gave memory back), or 0 when none
   * came within the wait bound (on the timer's thread).
   *
   * @throws ServerClosingException the timer is shut down (the server is stopping)
   */
  int acquire(int want, IntConsumer later) {
    synchronized (this) {
      int grant = grantable(want);
      if (grant > 0 && waiters.isEmpty()) {
        used += grant;
        return grant;
      }
      Runnable cancelTimer;
      try {
        cancelTimer =
            timer.apply(
                () -> {
                  if (cancel(later)) {
                    later.accept(0);
                  }
                },
                maxWaitNanos);
      } catch (RejectedExecutionException e) {
        // No wait can be bounded any more: UNAVAILABLE, like every call of a stopping server.
        throw new ServerClosingException();
      }
      waiters.add(new Waiter(want, later, cancelTimer));
      return 0;
    }
  }

  /** Drops the waiter {@code later} registered; false when it was granted (or dropped) already. */
  boolean cancel(IntConsumer later) {
    boolean found = false;
    synchronized (this) {
      for (Iterator<Waiter> it = waiters.iterator(); it.hasNext(); ) {
        Waiter w = it.next();
        if (w.granted() == later) {
          it.remove();
          w.cancelTimer().run();
          found = true;
          break;
        }
      }
    }
    if (found) {
      // The waiter dropped may have held up the ones behind it.
      release(0);
    }
    return found;
  }

  void release(int ids) {
    List<Runnable> wake = new ArrayList<>();
    synchronized (this) {
      used -= ids;
      while (!waiters.isEmpty()) {
        Waiter w = waiters.peek();
        int grant = grantable(w.want());
        if (grant == 0) {
          break;
        }
        waiters.poll();
        w.cancelTimer().run();
        used += grant;
        wake.add(() -> w.granted().accept(grant));
      }
    }
    wake.forEach(Runnable::run);
  }

  private int grantable(int want) {
    long free = capacity - used;
    if (free < Math.min(want, MIN_GRANT)) {
      return 0;
    }
    return (int) Math.min(want, free);
  }
}
