package io.leaf.server.sequence;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs the sequences' statements one at a time on a shared executor, so they never take more than
 * one of its threads (the owner leases renewed on the same executor always find one free).
 *
 * <p>Thread-safe. The queue is bounded by the sections in memory: each has one statement pending at
 * most.
 */
final class SerialDatabase implements Executor {

  private final Executor executor;
  private final Queue<Runnable> queue = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean running = new AtomicBoolean();

  SerialDatabase(Executor executor) {
    this.executor = executor;
  }

  @Override
  public void execute(Runnable work) {
    queue.add(work);
    drain();
  }

  private void drain() {
    if (queue.isEmpty() || !running.compareAndSet(false, true)) {
      return;
    }
    executor.execute(
        () -> {
          try {
            Runnable next = queue.poll();
            if (next != null) {
              next.run();
            }
          } finally {
            running.set(false);
            drain();
          }
        });
  }
}
