package io.leaf.server.engine;

import com.google.common.util.concurrent.ThreadFactoryBuilder;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Runs a task once after a delay: how waiting calls meet their deadlines without a thread parked
 * per call. Tests substitute a timer driven by a fake clock.
 */
public interface DeadlineTimer extends AutoCloseable {

  /**
   * Runs {@code task} about {@code delayNanos} from now on the timer's own thread.
   *
   * @return cancels the task if it has not run yet; cheap, and a no-op once it ran
   */
  Runnable schedule(Runnable task, long delayNanos);

  @Override
  void close();

  /**
   * One daemon thread over a {@link ScheduledThreadPoolExecutor} that removes cancelled tasks at
   * once, so calls answered before their deadline leave nothing behind in its queue.
   */
  static DeadlineTimer threaded(String threadName) {
    ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1,
        new ThreadFactoryBuilder().setNameFormat(threadName).setDaemon(true).build());
    executor.setRemoveOnCancelPolicy(true);
    return new DeadlineTimer() {
      @Override
      public Runnable schedule(Runnable task, long delayNanos) {
        ScheduledFuture<?> f = executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        return () -> f.cancel(false);
      }

      @Override
      public void close() {
        executor.shutdownNow();
      }
    };
  }
}
