package io.leaf.server.engine;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs a task once after a delay: how waiting calls meet their deadlines without a thread parked
 * per call. Tests substitute a timer driven by a fake clock.
 */
public interface DeadlineTimer {

  /**
   * Runs {@code task} about {@code delayNanos} from now on the timer's thread.
   *
   * @return cancels the task if it has not run yet; cheap, and a no-op once it ran
   */
  Runnable schedule(Runnable task, long delayNanos);

  /**
   * A timer on {@code executor}, which stays its maker's to shut down. The executor should remove
   * cancelled tasks at once ({@link
   * java.util.concurrent.ScheduledThreadPoolExecutor#setRemoveOnCancelPolicy}), so calls answered
   * before their deadline leave nothing behind in its queue.
   */
  static DeadlineTimer on(ScheduledExecutorService executor) {
    return (task, delayNanos) -> {
      ScheduledFuture<?> f = executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
      return () -> f.cancel(false);
    };
  }
}
