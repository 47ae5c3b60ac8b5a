package io.leaf.server;

import com.google.common.base.Ticker;
import com.google.common.util.concurrent.ThreadFactoryBuilder;
import com.zaxxer.hikari.HikariDataSource;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.ProtoReflectionService;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.leaf.server.api.DatabaseCalls;
import io.leaf.server.api.LeafGrpcService;
import io.leaf.server.api.MalformedRequests;
import io.leaf.server.api.SnowflakeGrpcService;
import io.leaf.server.engine.CoarseTicker;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.http.HttpEndpoints;
import io.leaf.server.http.HttpRoutes;
import io.leaf.server.http.HttpConfig;
import io.leaf.server.http.IdEndpoints;
import io.leaf.server.http.MonitorData;
import io.leaf.server.http.MonitorPage;
import io.leaf.server.http.SnowflakeIds;
import io.leaf.server.http.WorkerLeaseView;
import io.leaf.server.ops.Metrics;
import io.leaf.server.ops.Operations;
import io.leaf.server.ops.TokenCheck;
import io.leaf.server.snowflake.Snowflake;
import io.leaf.server.snowflake.SnowflakeConfig;
import io.leaf.server.snowflake.SnowflakeGenerator;
import io.leaf.server.snowflake.SnowflakeLayout;
import io.leaf.server.store.DataSources;
import io.leaf.server.store.JooqSegmentStore;
import io.leaf.server.store.JooqWorkerLeaseStore;
import io.leaf.server.store.MemoryWorkerLeaseStore;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.UnusableTableException;
import io.leaf.server.store.WorkerLeaseStore;
import io.leaf.server.sweep.IdleTagSweeper;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
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
 * <p>Health (readiness) means "this server can issue IDs", through database outages too; the
 * database's own state is {@value #DATABASE_HEALTH} (see {@link ServerHealth}).
 */
public final class LeafServer {

  private static final Logger log = LoggerFactory.getLogger(LeafServer.class);
  private static final Logger startLog = LoggerFactory.getLogger(LogLevels.START_LOGGER);
  /** The health service name that reports whether the database answers (for alerting). */
  public static final String DATABASE_HEALTH = ServerHealth.DATABASE;
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
  private final SegmentAllocator allocator;
  private final IdleTagSweeper sweeper;
  private final ServerHealth health;
  private final AutoCloseable resources;
  private final DatabaseCalls database;
  private final ThreadPoolExecutor streamPump;
  private final LeafGrpcService service;
  private final Snowflake snowflake;
  private final ServerConfig config;
  /** The meters {@code /metrics} serves; null when no port serves them. */
  private Metrics metrics;
  /** Where {@code /api/snowflake/get/{key}} takes IDs; set before {@link #start()}. */
  private volatile SnowflakeIds snowflakeIds = SnowflakeIds.NOT_SERVED;
  /** What the monitor page shows of the worker lease; set before {@link #start()}. */
  private volatile WorkerLeaseView workerLease = WorkerLeaseView.NONE;
  /** The HTTP ports, bound by {@link #start()}; null before. */
  private volatile HttpEndpoints http;
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
    this(builder, store, schemaInit, allocator, snowflake(config,
        new MemoryWorkerLeaseStore(InstantSource.system())), config, resources);
  }

  /**
   * @param snowflake the snowflake IDs' generator and lease keeper; started and closed with the
   *     server
   */
  public LeafServer(ServerBuilder<?> builder, SegmentStore store, Runnable schemaInit,
      SegmentAllocator allocator, Snowflake snowflake, ServerConfig config,
      AutoCloseable resources) {
    TransportLogs.install();
    this.snowflake = snowflake;
    this.snowflakeIds = () -> {
      try {
        return CompletableFuture.completedFuture(snowflake.nextId());
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    };
    this.workerLease = () -> {
      SnowflakeGenerator g = snowflake.generator();
      SnowflakeLayout layout = snowflake.layout();
      return List.of(
          Map.entry("worker ID", g.leaseValid() ? Integer.toString(g.workerId()) : "none held"),
          Map.entry("lease valid", Boolean.toString(g.leaseValid())),
          Map.entry("ID time ahead of wall clock", g.aheadOfWallMs() + " ms"),
          Map.entry("layout", layout.timestampBits() + "/" + layout.workerIdBits() + "/"
              + layout.sequenceBits() + " bits, runs out in " + layout.endYear()));
    };
    this.store = store;
    this.health = new ServerHealth(store, schemaInit, allocator.ticker(), config.maxWatches(),
        allocator, snowflake.generator()::leaseValid);
    snowflake.reportLeaseTo(health::reportSnowflakeLease);
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
        config.maxBatch(), config.maxStreams(), config.maxStreamMemory(), database, streamPump);
    this.server = builder
        .directExecutor()
        .addService(MalformedRequests.guard(service.bindService()))
        .addService(MalformedRequests.guard(
            new SnowflakeGrpcService(snowflake, service).bindService()))
        .addService(health.service())
        .addService(ProtoReflectionServiceV1.newInstance())
        .addService(ProtoReflectionService.newInstance())
        .build();
  }

  /**
   * Production wiring: Netty on {@code config.port()} (at most {@code --max-calls-per-connection}
   * concurrent calls per connection), HikariCP on {@code config.dbUrl()}.
   */
  public static LeafServer fromConfig(ServerConfig config) {
    Operations ops = Operations.open(config.ops(), config.http().enabled());
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
    return fromConfig(config, builder, Operations.open(config.ops(), config.http().enabled()),
        decorate);
  }

  private static LeafServer fromConfig(ServerConfig config, ServerBuilder<?> builder,
      Operations ops, UnaryOperator<SegmentStore> decorate) {
    try {
      return wire(config, builder, ops, decorate);
    } catch (RuntimeException e) {
      // The metrics port and the TLS refresh are already open; a server that never came to be
      // must not leave them behind.
      ops.close();
      throw e;
    }
  }

  private static LeafServer wire(ServerConfig config, ServerBuilder<?> builder, Operations ops,
      UnaryOperator<SegmentStore> decorate) {
    // Refused before the pool, the lease thread and the engine exist: nothing to leave behind.
    LeafGrpcService.checkStreamMemory(config.maxStreamMemory());
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
    Snowflake snowflake = snowflake(config, new JooqWorkerLeaseStore(pool,
        DataSources.dialectOf(config.dbUrl()), InstantSource.system()));
    SegmentStore served = decorate.apply(store);
    CoarseTicker ticker = new CoarseTicker(TICKER_RESOLUTION);
    SegmentAllocator allocator = new SegmentAllocator(served, ticker,
        config.engine(EngineConfig.DEFAULTS));
    AutoCloseable resources = () -> {
      ticker.close();
      pool.close();
      ops.close();
    };
    LeafServer server = new LeafServer(builder, served, store::createSchemaIfMissing, allocator,
        snowflake, config, resources);
    ops.watchEngine(allocator, server.sweeper(), server::databaseUp);
    server.metrics = ops.metrics();
    ops.watchSnowflake(snowflake);
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
      http = HttpEndpoints.start(config.ops().metricsPort(), config.http(), metrics, httpRoutes());
    } catch (IllegalArgumentException e) {
      stop();
      throw e;
    }
    try {
      health.checkAtStart();
    } catch (UnusableTableException e) {
      stop();
      throw e;
    }
    sweeper.start();
    snowflake.start();
    health.startMonitor();
    startLog.info("Leaf listening on port {} ({})", server.getPort(), config);
    return this;
  }

  /** The bound port (useful with port 0). */
  public int port() {
    return server.getPort();
  }

  /** The HTTP ports, once started; null before {@link #start()}. */
  public HttpEndpoints http() {
    return http;
  }

  /** Serves {@code /api/snowflake/get/{key}} from {@code ids}; call before {@link #start()}. */
  public LeafServer serveSnowflake(SnowflakeIds ids) {
    this.snowflakeIds = ids;
    return this;
  }

  /** Shows {@code lease} on the monitor page; call before {@link #start()}. */
  public LeafServer showWorkerLease(WorkerLeaseView lease) {
    this.workerLease = lease;
    return this;
  }

  /** What {@code --http-port} serves. */
  private HttpRoutes httpRoutes() {
    HttpRoutes routes = new HttpRoutes();
    if (metrics != null) {
      routes.get("/metrics", HttpEndpoints.metricsRoute(metrics));
    }
    String admin = config.ops().adminToken();
    TokenCheck tokens = admin == null ? null : new TokenCheck(admin, config.ops().clientToken());
    new IdEndpoints(allocator, config.maxWait(), snowflakeIds, tokens,
        metrics == null ? flag -> { } : metrics::limitRefused).addTo(routes);
    List<MonitorData.Limit> limits = List.of(
        new MonitorData.Limit("--max-waiting", config.maxWaiting(), allocator::waitingCalls),
        new MonitorData.Limit("--max-streams", config.maxStreams(), service::openStreams),
        new MonitorData.Limit("--max-stream-memory", service.streamMemoryBytes(),
            service::streamMemoryUsedBytes),
        new MonitorData.Limit("--max-watches", config.maxWatches(), null),
        new MonitorData.Limit("--max-queued-loads", config.maxQueuedLoads(), null),
        new MonitorData.Limit("--max-queued-first-loads", config.maxQueuedFirstLoads(), null),
        new MonitorData.Limit("--max-queued-db-calls", config.maxQueuedDbCalls(), null),
        new MonitorData.Limit(HttpConfig.MAX_CONNECTIONS_FLAG, config.http().maxConnections(),
            () -> http == null ? 0 : http.httpConnections()));
    new MonitorPage(new MonitorData(allocator, this::databaseUp, limits,
        metrics == null ? Map::of : metrics::refusals, workerLease),
        config.ops().monitorPublic() ? null : tokens).addTo(routes);
    return routes;
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

  public Snowflake snowflake() {
    return snowflake;
  }

  /** The production snowflake side of {@code config} on {@code leases}, with the real clocks. */
  private static Snowflake snowflake(ServerConfig config, WorkerLeaseStore leases) {
    SnowflakeConfig s = config.snowflake();
    return new Snowflake(leases, s.layout(), s.fromId(), s.toId(), s.leaseTtl(),
        InstantSource.system(), Ticker.systemTicker());
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
    health.shutdown();
    server.shutdown();
    health.closeWatches();
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
    HttpEndpoints ports = http;
    if (ports != null) {
      ports.close();
    }
    sweeper.close();
    // After the calls: it stops issuing and gives the worker ID back while the pool is open.
    snowflake.close();
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
    return health.databaseUp();
  }

  /** Runs the periodic database check now (tests; the monitor thread runs it every 2 s). */
  public void checkDatabaseNow() {
    health.checkNow();
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
    LogLevels.apply(config.logLevel());
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
    if (config.dbUrl().startsWith("jdbc:h2:")) {
      log.warn("the embedded H2 database ({}) is for trying Leaf out: IDs are safe only as long as"
          + " its file is; a lost or recreated file starts again at max_id 1 and repeats IDs."
          + " Production uses --db-url jdbc:mysql:// (MySQL/MariaDB)",
          DataSources.redact(config.dbUrl()));
    }
    Runtime.getRuntime().addShutdownHook(new Thread(server::stop, "leaf-shutdown"));
    server.awaitTermination();
  }
}
