package io.leaf.server;

import com.google.common.util.concurrent.ThreadFactoryBuilder;
import com.zaxxer.hikari.HikariDataSource;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionService;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.leaf.server.api.LeafGrpcService;
import io.leaf.server.engine.CoarseTicker;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.store.DataSources;
import io.leaf.server.store.JooqSegmentStore;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.sweep.IdleTagSweeper;
import io.leaf.v1.LeafServiceGrpc;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Leaf gRPC server: LeafService, server reflection and the standard health service over one
 * shared {@link SegmentAllocator}, whose idle tags an {@link IdleTagSweeper} evicts after
 * {@code --idle-ttl}.
 *
 * <p>Health is SERVING once the database answers and the schema is in place, NOT_SERVING while it
 * does not (checked every two seconds), and NOT_SERVING for good once shutdown begins.
 */
public final class LeafServer {

  private static final Logger log = LoggerFactory.getLogger(LeafServer.class);
  private static final long HEALTH_PERIOD_MILLIS = 2_000;
  /** Precision of the engine's clock: last access, back-off and dynamic-step timing. */
  private static final Duration TICKER_RESOLUTION = Duration.ofMillis(1);

  private final Server server;
  private final SegmentStore store;
  private final Runnable schemaInit;
  private final SegmentAllocator allocator;
  private final IdleTagSweeper sweeper;
  private final HealthStatusManager health = new HealthStatusManager();
  private final ScheduledExecutorService monitor;
  private final AutoCloseable resources;
  private final ServerConfig config;
  private volatile boolean schemaReady;
  private volatile boolean stopped;

  /**
   * @param builder where to serve (Netty in production, in-process in tests)
   * @param schemaInit creates the schema when missing; retried until it succeeds
   * @param resources closed last on {@link #stop()} (the connection pool, the engine's ticker)
   */
  public LeafServer(ServerBuilder<?> builder, SegmentStore store, Runnable schemaInit,
      SegmentAllocator allocator, ServerConfig config, AutoCloseable resources) {
    this.store = store;
    this.schemaInit = schemaInit;
    this.allocator = allocator;
    this.sweeper = new IdleTagSweeper(allocator, config.idleTtl(), config.sweepTick());
    this.config = config;
    this.resources = resources;
    this.server = builder
        .addService(new LeafGrpcService(allocator, store, InstantSource.system(), config.maxWait(),
            config.maxBatch()))
        .addService(health.getHealthService())
        .addService(ProtoReflectionServiceV1.newInstance())
        .addService(ProtoReflectionService.newInstance())
        .build();
    this.monitor = Executors.newSingleThreadScheduledExecutor(
        new ThreadFactoryBuilder().setNameFormat("leaf-health").setDaemon(true).build());
    health.setStatus("", ServingStatus.NOT_SERVING);
    health.setStatus(LeafServiceGrpc.SERVICE_NAME, ServingStatus.NOT_SERVING);
  }

  /** Production wiring: Netty on {@code config.port()}, HikariCP on {@code config.dbUrl()}. */
  public static LeafServer fromConfig(ServerConfig config) {
    return fromConfig(config, NettyServerBuilder.forAddress(new InetSocketAddress(config.port())),
        UnaryOperator.identity());
  }

  /**
   * The production wiring on {@code builder}, with the database store passed through {@code
   * decorate} before the engine and the API see it (a benchmark adds latency to segment loads this
   * way; the server itself has no such switch).
   */
  public static LeafServer fromConfig(ServerConfig config, ServerBuilder<?> builder,
      UnaryOperator<SegmentStore> decorate) {
    HikariDataSource pool = DataSources.create(config.dbUrl(), config.dbUser(), config.dbPassword(),
        config.dbPoolSize());
    JooqSegmentStore store = new JooqSegmentStore(pool, DataSources.dialectOf(config.dbUrl()),
        InstantSource.system());
    SegmentStore served = decorate.apply(store);
    CoarseTicker ticker = new CoarseTicker(TICKER_RESOLUTION);
    SegmentAllocator allocator = new SegmentAllocator(served, ticker,
        EngineConfig.DEFAULTS.withMaxStep(config.maxStep()).withLoaderThreads(config.dbPoolSize()));
    AutoCloseable resources = () -> {
      ticker.close();
      pool.close();
    };
    return new LeafServer(builder, served, store::createSchemaIfMissing, allocator, config,
        resources);
  }

  public LeafServer start() throws IOException {
    checkDatabase();
    server.start();
    sweeper.start();
    monitor.scheduleWithFixedDelay(this::checkDatabase, HEALTH_PERIOD_MILLIS, HEALTH_PERIOD_MILLIS,
        TimeUnit.MILLISECONDS);
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
    try {
      resources.close();
    } catch (Exception e) {
      log.warn("closing the database pool failed", e);
    }
    log.info("Leaf stopped");
  }

  public void awaitTermination() throws InterruptedException {
    server.awaitTermination();
  }

  private void checkDatabase() {
    if (stopped) {
      return;
    }
    ServingStatus status;
    try {
      if (!schemaReady) {
        schemaInit.run();
        schemaReady = true;
      }
      store.ping();
      status = ServingStatus.SERVING;
    } catch (RuntimeException e) {
      log.warn("database not ready: {}", e.getMessage());
      status = ServingStatus.NOT_SERVING;
    }
    health.setStatus("", status);
    health.setStatus(LeafServiceGrpc.SERVICE_NAME, status);
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
    LeafServer server = fromConfig(config).start();
    Runtime.getRuntime().addShutdownHook(new Thread(server::stop, "leaf-shutdown"));
    server.awaitTermination();
  }
}
