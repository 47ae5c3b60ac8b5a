package io.leaf.server.grpc;

import io.leaf.server.engine.LimitExceededException;
import io.leaf.server.engine.ServerClosingException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Where the RPCs that must talk to the database run: a fixed number of threads and a bounded queue,
 * never a transport thread. A full queue refuses a call at once with RESOURCE_EXHAUSTED, shutdown
 * with UNAVAILABLE.
 *
 * <p>The RPCs: CreateTag, UpdateStep, SetFormat, GetTag, WhoIssued, ListTags, the status read of
 * InitCache and ReserveIds' dedicated write.
 *
 * <p>Runs on the executor it is given (the server's is {@code ServerThreads.databaseCalls}), whose
 * queue must hold {@code queue} calls and refuse more with a {@link RejectedExecutionException};
 * {@link #close} shuts it down. Thread-safe.
 */
public final class DatabaseCalls implements AutoCloseable {

  static final String QUEUE_FLAG = "--max-queued-db-calls";

  private final ExecutorService executor;
  private final int queue;

  /**
   * @param executor runs the calls; owned from now on (shut down by {@link #close})
   * @param queue the calls {@code executor} queues before it refuses one (the refusal names it)
   */
  public DatabaseCalls(ExecutorService executor, int queue) {
    this.executor = executor;
    this.queue = queue;
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
      throw new LimitExceededException(
          "too many calls waiting for the database", queue, QUEUE_FLAG);
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
