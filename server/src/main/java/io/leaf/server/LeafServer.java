package io.leaf.server;

import com.google.common.util.concurrent.ThreadFactoryBuilder;
import com.zaxxer.hikari.HikariDataSource;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerInterceptors;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionService;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.leaf.server.api.DatabaseCalls;
import io.leaf.server.api.LeafGrpcService;
import io.leaf.server.api.MalformedRequests;
import io.leaf.server.engine.CoarseTicker;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.ops.Operations;
import io.leaf.server.store.DataSources;
import io.leaf.server.store.JooqSegmentStore;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.UnusableTableException;
import io.leaf.server.sweep.IdleTagSweeper;
import io.leaf.v1.LeafServiceGrpc;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Leaf gRPC server: LeafService, server reflection and the standard health service over one
 * shared {@link SegmentAllocator}, whose idle tags an {@link IdleTagSweeper} evicts after
 * {@code --idle-ttl}.
 *
 * <p>Threading: every service runs on the transport's threads (a direct executor); no handler
 * blocks. Calls that must touch the database run on a bounded {@link DatabaseCalls}, segment
 * loads on the engine's loader threads, NextIdBatch's encoding on a stream pump of half the
 * cores, and calls waiting for a segment hold no thread at all.
 *
 * <p>Health (readiness) means "this server can issue IDs": the server-wide status ({@code ""}) and
 * {@code leaf.v1.LeafService} are NOT_SERVING until the start-up checks pass (the database answers
 * and {@code leaf_alloc} is usable), then SERVING, through database outages too (buffered IDs keep
 * flowing), and NOT_SERVING for good once shutdown begins. The database's own state, checked every
 * two seconds, is {@value #DATABASE_HEALTH} and one log line per change.
 */
public final class LeafServer {

  private static final Logger log = LoggerFactory.getLogger(LeafServer.class);
  private static final long HEALTH_PERIOD_MILLIS = 2_000;
  /** The health service name that reports whether the database answers (for alerting). */
  public static final String DATABASE_HEALTH = "leaf.database";
  /** While the database stays down, its state is logged again at most this often. */
  private static final Duration DOWN_LOG_PERIOD = Duration.ofMinutes(1);
  /** Precision of the engine's clock: last access, back-off and dynamic-step timing. */
  private static final Duration TICKER_RESOLUTION = Duration.ofMillis(1);
  /**
   * NextIdBatch's encoding work: half the cores, so that bulk streams (whose readers may hold
   * windows of megabytes) never take the CPU the transport threads need for unary calls.
   */
  private static final int STREAM_PUMP_THREADS =
      Math.max(1, Runtime.getRuntime().availableProcessors() / 2);

  private final Server server;
  private final SegmentStore store;
  private final Runnable schemaInit;
  private final SegmentAllocator allocator;
  private final IdleTagSweeper sweeper;
  private final HealthStatusManager health = new HealthStatusManager();
  private final HealthWatches watches = new HealthWatches();
  private final DatabaseState databaseState;
  private final ScheduledExecutorService monitor;
  private final AutoCloseable resources;
  private final DatabaseCalls database;
  private final ThreadPoolExecutor streamPump;
  private final LeafGrpcService service;
  private final ServerConfig config;
  private volatile boolean schemaReady;
  /** The last unusable-table reason logged (logged again only when it changes). */
  private String tableProblem;
  /** The start-up checks passed: readiness is SERVING until shutdown. */
  private volatile boolean ready;
  /** Serializes database checks (the monitor's and a test's), so their log lines stay in order. */
  private final Object checkLock = new Object();
  private volatile boolean stopped;
  /** The port was bound (a start that failed before it stops without a "stopped" line). */
  private volatile boolean listening;

  /**
   * @param builder where to serve (Netty in production, in-process in tests); set to a direct
   *     executor here, since no handler blocks
   * @param schemaInit creates the schema when missing; retried until it succeeds
   * @param resources closed last on {@link #stop()} (the connection pool, the engine's ticker)
   */
  public LeafServer(ServerBuilder<?> builder, SegmentStore store, Runnable schemaInit,
      SegmentAllocator allocator, ServerConfig config, AutoCloseable resources) {
    TransportLogs.install();
    this.store = store;
    this.schemaInit = schemaInit;
    this.allocator = allocator;
    this.sweeper = new IdleTagSweeper(allocator, config.idleTtl(), config.sweepTick());
    this.config = config;
    this.resources = resources;
    this.database = new DatabaseCalls(config.dbCallThreads(), config.maxQueuedDbCalls());
    // One queued task per stream at most (a stream's events run one after another), so twice
    // --max-streams leaves room for streams that just ended and never refuses an open one.
    this.streamPump = new ThreadPoolExecutor(STREAM_PUMP_THREADS, STREAM_PUMP_THREADS, 60,
        TimeUnit.SECONDS, new ArrayBlockingQueue<>(2 * config.maxStreams()),
        new ThreadFactoryBuilder().setNameFormat("leaf-stream-%d").setDaemon(true).build());
    streamPump.allowCoreThreadTimeOut(true);
    this.service = new LeafGrpcService(allocator, store, InstantSource.system(), config.maxWait(),
        config.maxBatch(), config.maxStreams(), database, streamPump);
    this.server = builder
        .directExecutor()
        .addService(MalformedRequests.guard(service.bindService()))
        .addService(ServerInterceptors.intercept(health.getHealthService(), watches))
        .addService(ProtoReflectionServiceV1.newInstance())
        .addService(ProtoReflectionService.newInstance())
        .build();
    this.monitor = Executors.newSingleThreadScheduledExecutor(
        new ThreadFactoryBuilder().setNameFormat("leaf-health").setDaemon(true).build());
    this.databaseState = new DatabaseState(allocator.ticker(), DOWN_LOG_PERIOD);
    health.setStatus("", ServingStatus.NOT_SERVING);
    health.setStatus(LeafServiceGrpc.SERVICE_NAME, ServingStatus.NOT_SERVING);
    health.setStatus(DATABASE_HEALTH, ServingStatus.NOT_SERVING);
  }

  /**
   * Production wiring: Netty on {@code config.port()} (at most {@code --max-calls-per-connection}
   * concurrent calls per connection), HikariCP on {@code config.dbUrl()}.
   */
  public static LeafServer fromConfig(ServerConfig config) {
    Operations ops = Operations.open(config.ops());
    return fromConfig(config, NettyServerBuilder.forAddress(new InetSocketAddress(config.port()),
        ops.serverCredentials()), ops, UnaryOperator.identity());
  }

  /**
   * The production wiring on {@code builder}, with the database store passed through {@code
   * decorate} before the engine and the API see it (a benchmark adds latency to segment loads this
   * way; the server itself has no such switch).
   */
  public static LeafServer fromConfig(ServerConfig config, ServerBuilder<?> builder,
      UnaryOperator<SegmentStore> decorate) {
    // Metrics and tokens as configured; TLS only through fromConfig(config), which makes the
    // builder with its credentials.
    return fromConfig(config, builder, Operations.open(config.ops()), decorate);
  }

  private static LeafServer fromConfig(ServerConfig config, ServerBuilder<?> builder,
      Operations ops, UnaryOperator<SegmentStore> decorate) {
    ops.intercept(builder);
    if (builder instanceof NettyServerBuilder netty) {
      // HTTP/2's SETTINGS_MAX_CONCURRENT_STREAMS: a client holds further calls until one ends.
      netty.maxConcurrentCallsPerConnection(config.maxCallsPerConnection());
    }
    HikariDataSource pool = DataSources.create(config.dbUrl(), config.dbUser(), config.dbPassword(),
        config.connections());
    ops.watchPool(pool);
    JooqSegmentStore store = new JooqSegmentStore(pool, DataSources.dialectOf(config.dbUrl()),
        InstantSource.system());
    SegmentStore served = decorate.apply(ops.watchDatabase(store));
    CoarseTicker ticker = new CoarseTicker(TICKER_RESOLUTION);
    SegmentAllocator allocator = new SegmentAllocator(served, ticker,
        config.engine(EngineConfig.DEFAULTS));
    AutoCloseable resources = () -> {
      ticker.close();
      pool.close();
      ops.close();
    };
    LeafServer server = new LeafServer(builder, served, store::createSchemaIfMissing, allocator,
        config, resources);
    ops.watchEngine(allocator, server.sweeper());
    return server;
  }

  /**
   * Binds the port, then checks the database (the port first: a server that cannot listen exits
   * without touching the database).
   *
   * @throws IOException the port cannot be bound
   * @throws UnusableTableException the database answers but its {@code leaf_alloc} cannot be
   *     used; the server is stopped (a database that does not answer yet is retried instead)
   */
  public LeafServer start() throws IOException {
    try {
      server.start();
    } catch (IOException e) {
      stop();
      throw e;
    }
    listening = true;
    try {
      checkDatabase(true);
    } catch (UnusableTableException e) {
      stop();
      throw e;
    }
    sweeper.start();
    monitor.scheduleWithFixedDelay(() -> checkDatabase(false), HEALTH_PERIOD_MILLIS,
        HEALTH_PERIOD_MILLIS, TimeUnit.MILLISECONDS);
    log.info("Leaf listening on port {} ({})", server.getPort(), config);
    return this;
  }

  /** The bound port (useful with port 0). */
  public int port() {
    return server.getPort();
  }

  /** The store the API and the engine use. */
  public SegmentStore store() {
    return store;
  }

  public SegmentAllocator allocator() {
    return allocator;
  }

  public IdleTagSweeper sweeper() {
    return sweeper;
  }

  public LeafGrpcService service() {
    return service;
  }

  /**
   * Stops accepting calls, lets in-flight calls finish within the grace period, then stops the
   * idle-tag sweeper and the engine and closes the database pool. Idempotent.
   */
  public synchronized void stop() {
    if (stopped) {
      return;
    }
    stopped = true;
    health.enterTerminalState();
    monitor.shutdownNow();
    server.shutdown();
    // Health/Watch streams never end by themselves; left open they would hold the server for the
    // whole grace period.
    watches.closeAll();
    try {
      if (!server.awaitTermination(config.shutdownGrace().toMillis(), TimeUnit.MILLISECONDS)) {
        log.warn("calls still running after {}; cancelling them", config.shutdownGrace());
        server.shutdownNow();
        server.awaitTermination(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    }
    sweeper.close();
    allocator.close();
    streamPump.shutdownNow();
    database.close();
    try {
      resources.close();
    } catch (Exception e) {
      log.warn("closing the database pool failed", e);
    }
    if (listening) {
      log.info("Leaf stopped");
    }
  }

  public void awaitTermination() throws InterruptedException {
    server.awaitTermination();
  }

  /** Whether the database answered the last check. */
  public boolean databaseUp() {
    return databaseState.isUp();
  }

  /** Runs the periodic database check now (tests; the monitor thread runs it every 2 s). */
  public void checkDatabaseNow() {
    checkDatabase(false);
  }

  private void checkDatabase(boolean atStart) {
    synchronized (checkLock) {
      checkDatabaseLocked(atStart);
    }
  }

  private void checkDatabaseLocked(boolean atStart) {
    if (stopped) {
      return;
    }
    RuntimeException failure = null;
    try {
      if (!schemaReady) {
        schemaInit.run();
        schemaReady = true;
      }
      store.ping();
    } catch (UnusableTableException e) {
      if (atStart) {
        throw e;
      }
      // The database answers; the table is what stops this server: not an outage to alert on.
      if (!e.getMessage().equals(tableProblem)) {
        tableProblem = e.getMessage();
        log.warn("leaf_alloc unusable; readiness stays NOT_SERVING: {}", e.getMessage());
      }
      health.setStatus(DATABASE_HEALTH, ServingStatus.SERVING);
      return;
    } catch (RuntimeException e) {
      failure = e;
    }
    if (stopped) {
      // Shutdown interrupted the check: what it saw says nothing about the database.
      return;
    }
    String line = databaseState.observe(failure);
    if (line != null) {
      if (failure == null) {
        log.info(line);
      } else {
        log.warn(line);
      }
    }
    health.setStatus(DATABASE_HEALTH,
        failure == null ? ServingStatus.SERVING : ServingStatus.NOT_SERVING);
    if (failure == null && !ready) {
      ready = true;
      health.setStatus("", ServingStatus.SERVING);
      health.setStatus(LeafServiceGrpc.SERVICE_NAME, ServingStatus.SERVING);
    }
  }

  /** Why the port could not be bound, in the operating system's words where it gave any. */
  static String bindFailure(IOException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String m = t.getMessage();
      if (m != null && m.contains("Address already in use")) {
        return "Address already in use";
      }
    }
    Throwable root = e.getCause() != null ? e.getCause() : e;
    return root.getMessage();
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
      System.out.print(ServerConfig.help());
      return;
    }
    ServerConfig config;
    try {
      config = ServerConfig.parse(args, System::getenv);
    } catch (IllegalArgumentException e) {
      System.err.println("leaf-server: " + e.getMessage());
      System.exit(2);
      return;
    }
    LeafServer server;
    try {
      server = fromConfig(config).start();
    } catch (UnusableTableException | IllegalArgumentException e) {
      System.err.println("leaf-server: " + e.getMessage());
      System.exit(2);
      return;
    } catch (IOException e) {
      System.err.println("leaf-server: cannot listen on port " + config.port() + ": "
          + bindFailure(e));
      System.exit(2);
      return;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(server::stop, "leaf-shutdown"));
    server.awaitTermination();
  }
}
