package io.leaf.server.threads;

import com.google.common.util.concurrent.ThreadFactoryBuilder;
import io.leaf.server.engine.DeadlineTimer;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.engine.EngineThreads;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Makes every thread the server runs: named daemons on bounded queues, each executor handed to an
 * owner that shuts it down.
 *
 * <p>No other class of the server makes a thread or an executor: each takes the ones it runs on in
 * its constructor, so a test can hand it a manual one instead. Every name starts with {@code
 * leaf-}, which is how the stop test finds them.
 */
public final class ServerThreads {

  /**
   * NextIdBatch's encoding work: half the cores, so that bulk streams (whose readers may hold
   * windows of megabytes) never take the CPU the transport threads need for unary calls.
   */
  private static final int STREAM_PUMP_THREADS =
      Math.max(1, Runtime.getRuntime().availableProcessors() / 2);

  private ServerThreads() {}

  /**
   * The engine's threads as the server runs them: loaders and first loaders bounded as {@code
   * engine} says, and a deadline thread that drops cancelled deadlines at once. Each executor goes
   * to {@code owner}, which shuts it down after the engine's {@link SegmentAllocator#close()}.
   */
  public static EngineThreads engineThreads(EngineConfig engine, Consumer<ExecutorService> owner) {
    ThreadPoolExecutor loads =
        pool("leaf-loader-%d", engine.loaders().threads(), engine.loaders().queue());
    ThreadPoolExecutor first =
        pool("leaf-first-loader-%d", engine.firstLoads().threads(), engine.firstLoads().queue());
    ScheduledThreadPoolExecutor deadlines = scheduler("leaf-wait-deadlines");
    deadlines.setRemoveOnCancelPolicy(true);
    List.of(loads, first, deadlines).forEach(owner);
    return new EngineThreads(loads, first, DeadlineTimer.on(deadlines));
  }

  /**
   * The RPCs that call the database ({@code --db-call-threads} over a queue of {@code
   * --max-queued-db-calls}), for {@link io.leaf.server.grpc.DatabaseCalls}, which shuts it down.
   */
  public static ThreadPoolExecutor databaseCalls(int threads, int queue) {
    return pool("leaf-db-call-%d", threads, queue);
  }

  /**
   * NextIdBatch's stream pump, shut down with the server's resources. One queued task per stream at
   * most (a stream's events run one after another), so twice {@code --max-streams} leaves room for
   * streams that just ended and never refuses an open one.
   */
  public static ThreadPoolExecutor streamPump(int maxStreams) {
    return pool("leaf-stream-%d", STREAM_PUMP_THREADS, 2 * maxStreams);
  }

  /** The periodic database check of {@link io.leaf.server.health.ServerHealth}, its owner. */
  public static ScheduledThreadPoolExecutor healthMonitor() {
    return scheduler("leaf-health");
  }

  /** The sweeps of {@link io.leaf.server.sweep.IdleTagSweeper}, which shuts it down. */
  public static ScheduledThreadPoolExecutor idleSweeper() {
    return scheduler("leaf-idle-sweeper");
  }

  /** The TLS files' re-reads, for {@link io.leaf.server.security.TlsCredentials}, its owner. */
  public static ScheduledThreadPoolExecutor tlsRefresh() {
    return scheduler("leaf-tls-refresh");
  }

  /** The token file's re-reads, for {@link io.leaf.server.security.ServerTokens}, its owner. */
  public static ScheduledThreadPoolExecutor tokensRefresh() {
    return scheduler("leaf-tokens-refresh");
  }

  /**
   * Threads of an HTTP port's event loops, named {@code name-N} (Netty's own thread class, which
   * its event loops run fastest on); the port's {@link io.leaf.server.http.LeafHttpServer} stops
   * them on close.
   */
  public static ThreadFactory http(String name) {
    return new DefaultThreadFactory(name, true);
  }

  /** Starts a daemon that gives {@code task} (loading classes ahead of need) a head start. */
  public static void warmUp(Runnable task) {
    Thread t = new Thread(task, "leaf-warm-up");
    t.setDaemon(true);
    t.setPriority(Thread.MIN_PRIORITY);
    t.start();
  }

  /** The JVM shutdown hook that stops a running server. */
  public static Thread shutdownHook(Runnable stop) {
    return new Thread(stop, "leaf-shutdown");
  }

  /** {@code threads} named daemons over a queue of {@code queue}; idle ones end after 60 s. */
  private static ThreadPoolExecutor pool(String names, int threads, int queue) {
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            threads,
            threads,
            60,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(queue),
            daemons(names));
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  /**
   * The STRICT tags' lease statements and timers: two threads, so a slow read never holds back a
   * renewal for long.
   */
  public static ScheduledThreadPoolExecutor tagLeases() {
    ScheduledThreadPoolExecutor s =
        new ScheduledThreadPoolExecutor(2, daemons("leaf-tag-lease-%d"));
    s.setRemoveOnCancelPolicy(true);
    return s;
  }

  /** One named daemon thread running scheduled tasks, started with the first task. */
  public static ScheduledThreadPoolExecutor scheduler(String name) {
    return new ScheduledThreadPoolExecutor(1, daemons(name));
  }

  private static ThreadFactory daemons(String nameFormat) {
    return new ThreadFactoryBuilder().setNameFormat(nameFormat).setDaemon(true).build();
  }
}
