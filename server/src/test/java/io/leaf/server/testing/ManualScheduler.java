package io.leaf.server.testing;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A {@link ScheduledExecutorService} on a {@link FakeTicker} that runs its tasks only when {@link
 * #runDue} is called, on the calling thread, so a test steps scheduled work without sleeping.
 *
 * <p>{@code execute} and {@code submit} run their task at once on the caller's thread (a direct
 * executor); {@code schedule*} queue it for the ticker's time, a zero delay included. After {@link
 * #shutdown()} nothing more runs and every new task is rejected.
 */
public final class ManualScheduler extends AbstractExecutorService
    implements ScheduledExecutorService {

  private final class Task<V> extends FutureTask<V> implements ScheduledFuture<V> {
    private final long periodNanos;
    private final boolean fixedRate;
    private volatile long dueNanos;

    Task(Callable<V> work, long dueNanos, long periodNanos, boolean fixedRate) {
      super(work);
      this.dueNanos = dueNanos;
      this.periodNanos = periodNanos;
      this.fixedRate = fixedRate;
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(dueNanos - ticker.read(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed o) {
      return Long.compare(getDelay(TimeUnit.NANOSECONDS), o.getDelay(TimeUnit.NANOSECONDS));
    }

    @Override
    public boolean cancel(boolean mayInterrupt) {
      synchronized (ManualScheduler.this) {
        queue.remove(this);
      }
      return super.cancel(mayInterrupt);
    }

    void fire() {
      if (periodNanos == 0) {
        run();
      } else if (runAndReset()) {
        dueNanos = (fixedRate ? dueNanos : ticker.read()) + periodNanos;
        enqueue(this);
      }
    }
  }

  private final FakeTicker ticker;
  private final List<Task<?>> queue = new ArrayList<>();
  private volatile boolean shutdown;

  public ManualScheduler(FakeTicker ticker) {
    this.ticker = ticker;
  }

  /**
   * Runs every task due by the ticker's time in order of due time, including those the tasks
   * schedule that are due too; returns how many ran.
   */
  public int runDue() {
    int ran = 0;
    for (Task<?> next = takeDue(); next != null; next = takeDue()) {
      next.fire();
      ran++;
    }
    return ran;
  }

  /** Tasks queued and neither run nor cancelled. */
  public synchronized int pending() {
    return queue.size();
  }

  /** Nanoseconds until the earliest queued task is due (0 if overdue); -1 when none is queued. */
  public synchronized long nextDelayNanos() {
    return queue.stream()
        .mapToLong(t -> Math.max(0, t.getDelay(TimeUnit.NANOSECONDS)))
        .min()
        .orElse(-1);
  }

  private synchronized Task<?> takeDue() {
    Task<?> first = queue.stream().min(Comparator.comparingLong(t -> t.dueNanos)).orElse(null);
    if (first == null || first.dueNanos - ticker.read() > 0 || shutdown) {
      return null;
    }
    queue.remove(first);
    return first;
  }

  private synchronized <V> Task<V> enqueue(Task<V> task) {
    if (shutdown) {
      throw new RejectedExecutionException("shut down");
    }
    queue.add(task);
    return task;
  }

  private <V> Task<V> later(
      Callable<V> work, long delay, long period, TimeUnit unit, boolean fixedRate) {
    return enqueue(
        new Task<>(work, ticker.read() + unit.toNanos(delay), unit.toNanos(period), fixedRate));
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    return later(Executors.callable(command), delay, 0, unit, false);
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    return later(callable, delay, 0, unit, false);
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(
      Runnable command, long initialDelay, long period, TimeUnit unit) {
    return later(Executors.callable(command), initialDelay, period, unit, true);
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(
      Runnable command, long initialDelay, long delay, TimeUnit unit) {
    return later(Executors.callable(command), initialDelay, delay, unit, false);
  }

  @Override
  public void execute(Runnable command) {
    if (shutdown) {
      throw new RejectedExecutionException("shut down");
    }
    command.run();
  }

  @Override
  public synchronized void shutdown() {
    shutdown = true;
  }

  @Override
  public synchronized List<Runnable> shutdownNow() {
    shutdown = true;
    List<Runnable> left = new ArrayList<>(queue);
    queue.clear();
    return left;
  }

  @Override
  public boolean isShutdown() {
    return shutdown;
  }

  @Override
  public synchronized boolean isTerminated() {
    return shutdown && queue.isEmpty();
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return isTerminated();
  }
}
