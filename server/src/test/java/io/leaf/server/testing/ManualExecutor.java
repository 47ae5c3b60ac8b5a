package io.leaf.server.testing;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * An {@link Executor} that queues its tasks until {@link #runAll} runs them on the caller's thread,
 * so a test decides when a segment load runs instead of waiting for a loader thread.
 *
 * <p>Like the server's bounded pools it refuses a task past {@code capacity} queued ones with a
 * {@link RejectedExecutionException}. Thread-safe; tasks never run inside {@link #execute}.
 */
public final class ManualExecutor implements Executor {

  private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
  private final int capacity;

  /** Without a bound. */
  public ManualExecutor() {
    this(Integer.MAX_VALUE);
  }

  public ManualExecutor(int capacity) {
    this.capacity = capacity;
  }

  @Override
  public synchronized void execute(Runnable task) {
    if (queue.size() >= capacity) {
      throw new RejectedExecutionException(capacity + " tasks queued");
    }
    queue.add(task);
  }

  /** Runs the queued tasks, and those they queue, until none is left; returns how many ran. */
  public int runAll() {
    int ran = 0;
    for (Runnable next = poll(); next != null; next = poll()) {
      next.run();
      ran++;
    }
    return ran;
  }

  /** Tasks queued and not run yet. */
  public synchronized int pending() {
    return queue.size();
  }

  private synchronized Runnable poll() {
    return queue.poll();
  }
}
