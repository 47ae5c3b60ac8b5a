package io.leaf.server;

import com.google.common.util.concurrent.ThreadFactoryBuilder;
import io.leaf.server.engine.DeadlineTimer;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.engine.EngineThreads;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Makes the server's threads: named daemons on bounded queues, each handed to an owner that shuts
 * it down; part of the composition root beside {@link ServerWiring}.
 */
public final class ServerThreads {

  private ServerThreads() {}

  /**
   * The engine's threads as the server runs them: loaders and first loaders bounded as {@code
   * engine} says, and a deadline thread that drops cancelled deadlines at once. Each executor goes
   * to {@code owner}, which shuts it down after the engine's {@link SegmentAllocator#close()}.
   */
  public static EngineThreads engineThreads(EngineConfig engine, Consumer<ExecutorService> owner) {
    ThreadPoolExecutor loads = pool("leaf-loader-%d", engine.loaderThreads(), engine.loaderQueue());
    ThreadPoolExecutor first = pool("leaf-first-loader-%d", engine.firstLoadThreads(),
        engine.firstLoadQueue());
    ScheduledThreadPoolExecutor deadlines = scheduler("leaf-wait-deadlines");
    deadlines.setRemoveOnCancelPolicy(true);
    List.of(loads, first, deadlines).forEach(owner);
    return new EngineThreads(loads, first, DeadlineTimer.on(deadlines));
  }

  /** {@code threads} named daemons over a queue of {@code queue}; idle ones end after 60 s. */
  static ThreadPoolExecutor pool(String names, int threads, int queue) {
    ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS,
        new ArrayBlockingQueue<>(queue), daemons(names));
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  /** One named daemon thread running scheduled tasks. */
  static ScheduledThreadPoolExecutor scheduler(String name) {
    return new ScheduledThreadPoolExecutor(1, daemons(name));
  }

  private static ThreadFactory daemons(String nameFormat) {
    return new ThreadFactoryBuilder().setNameFormat(nameFormat).setDaemon(true).build();
  }
}
