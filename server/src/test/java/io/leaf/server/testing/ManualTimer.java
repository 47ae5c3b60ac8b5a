package io.leaf.server.testing;

import io.leaf.server.engine.DeadlineTimer;
import java.util.ArrayList;
import java.util.List;

/** A {@link DeadlineTimer} that runs its tasks only when {@link #fireDue} is called. */
public final class ManualTimer implements DeadlineTimer {

  private record Task(long dueNanos, Runnable action) {}

  private final FakeTicker ticker;
  private final List<Task> tasks = new ArrayList<>();

  public ManualTimer(FakeTicker ticker) {
    this.ticker = ticker;
  }

  @Override
  public synchronized Runnable schedule(Runnable action, long delayNanos) {
    Task t = new Task(ticker.read() + delayNanos, action);
    tasks.add(t);
    return () -> {
      synchronized (this) {
        tasks.remove(t);
      }
    };
  }

  /** Runs every task due by the ticker's time, on this thread; returns how many ran. */
  public int fireDue() {
    List<Task> due = new ArrayList<>();
    synchronized (this) {
      long now = ticker.read();
      tasks.removeIf(t -> t.dueNanos() <= now && due.add(t));
    }
    due.forEach(t -> t.action().run());
    return due.size();
  }

  /** Tasks scheduled and neither run nor cancelled. */
  public synchronized int pending() {
    return tasks.size();
  }
}
