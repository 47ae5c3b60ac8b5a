package io.leaf.server.api;

import com.google.common.util.concurrent.ThreadFactoryBuilder;
import io.leaf.server.engine.LimitExceededException;
import io.leaf.server.engine.ServerClosingException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Where the RPCs that must talk to the database (CreateTag, UpdateStep, GetTag, ListTags, the
 * status read of InitCache, ReserveIds' dedicated write) run: a fixed number of threads and a
 * bounded queue, never a transport thread. A call that finds the queue full is refused at once
 * with RESOURCE_EXHAUSTED; one that arrives during shutdown with UNAVAILABLE.
 *
 * <p>Thread-safe.
 */
public final class DatabaseCalls implements AutoCloseable {

  static final String QUEUE_FLAG = "--max-queued-db-calls";

  private final ThreadPoolExecutor executor;
  private final int queue;

  public DatabaseCalls(int threads, int queue) {
    this.queue = queue;
    this.executor = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS,
        new ArrayBlockingQueue<>(queue),
        new ThreadFactoryBuilder().setNameFormat("leaf-db-call-%d").setDaemon(true).build());
    this.executor.allowCoreThreadTimeOut(true);
  }

  /**
   * @throws LimitExceededException {@code queue} calls are waiting for a thread already
   * @throws ServerClosingException the server is shutting down
   */
  public void execute(Runnable call) {
    try {
      executor.execute(call);
    } catch (RejectedExecutionException e) {
      if (executor.isShutdown()) {
        throw new ServerClosingException();
      }
      throw new LimitExceededException("too many calls waiting for the database", queue,
          QUEUE_FLAG);
    }
  }

  /** Lets queued calls finish for up to {@code timeoutMillis}, then interrupts what still runs. */
  public void close(long timeoutMillis) {
    executor.shutdown();
    try {
      if (!executor.awaitTermination(timeoutMillis, TimeUnit.MILLISECONDS)) {
        executor.shutdownNow();
      }
    } catch (InterruptedException e) {
      executor.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    close(5_000);
  }
}
