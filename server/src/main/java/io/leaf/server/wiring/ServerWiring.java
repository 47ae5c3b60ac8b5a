package io.leaf.server.wiring;

import com.google.common.base.Ticker;
import io.grpc.InsecureServerCredentials;
import io.grpc.ServerBuilder;
import io.grpc.ServerCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.leaf.server.LeafServer;
import io.leaf.server.config.OpsConfig;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.engine.EngineEvents;
import io.leaf.server.engine.EngineListeners;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.formats.FormatAdmin;
import io.leaf.server.formats.FormattedIssuer;
import io.leaf.server.grpc.DatabaseCalls;
import io.leaf.server.grpc.LeafGrpcService;
import io.leaf.server.grpc.TagAdmin;
import io.leaf.server.health.ServerHealth;
import io.leaf.server.http.HttpEndpoints;
import io.leaf.server.http.HttpRoutes;
import io.leaf.server.ledger.HandBack;
import io.leaf.server.metrics.Metrics;
import io.leaf.server.ordering.Ordering;
import io.leaf.server.security.ServerTokens;
import io.leaf.server.security.TlsCredentials;
import io.leaf.server.security.TokenAccess;
import io.leaf.server.security.TokenMeters;
import io.leaf.server.snowflake.Snowflake;
import io.leaf.server.snowflake.SnowflakeConfig;
import io.leaf.server.snowflake.WorkerLeaseStore;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.sweep.IdleTagSweeper;
import io.leaf.server.sweep.SweepIntake;
import java.net.InetSocketAddress;
import java.time.InstantSource;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Builds the server's object graph from its configuration: the connection pool, the database
 * stores, the engine, the snowflake side, metrics, TLS and tokens, the health service and the HTTP
 * routes, handed ready to a {@link LeafServer}.
 *
 * <p>Threading (of what it builds): calls that must touch the database run on a bounded {@link
 * DatabaseCalls}, segment loads on the engine's loader threads, NextIdBatch's encoding on a stream
 * pump of half the cores, and calls waiting for a segment hold no thread at all. Every thread is a
 * named daemon made by {@link ServerThreads}, handed to its part's constructor here and shut down
 * by {@link LeafServer#stop()} (with or after the part using it).
 */
public final class ServerWiring {

  private ServerWiring() {}

  /**
   * The production server: Netty on {@code --port} (TLS when configured, at most {@code
   * --max-calls-per-connection} concurrent calls per connection), HikariCP on {@code --db-url}.
   *
   * @throws IllegalArgumentException one line naming the flag (or file) that cannot be used
   */
  public static LeafServer production(ServerConfig config) {
    OpsConfig ops = config.ops();
    TlsCredentials tls =
        ops.tlsEnabled() ? TlsCredentials.load(ops, ServerThreads.tlsRefresh()) : null;
    ServerCredentials credentials =
        tls != null ? tls.credentials() : InsecureServerCredentials.create();
    return production(
        config,
        NettyServerBuilder.forAddress(new InetSocketAddress(config.api().port()), credentials),
        tls,
        UnaryOperator.identity());
  }

  /**
   * The production graph on {@code builder} (without TLS, which needs the builder to be made with
   * its credentials), with the database store passed through {@code decorate} before the engine and
   * the API see it (a benchmark adds latency to segment loads this way; the server itself has no
   * such switch).
   */
  public static LeafServer production(
      ServerConfig config, ServerBuilder<?> builder, UnaryOperator<SegmentStore> decorate) {
    return production(config, builder, null, decorate);
  }

  private static LeafServer production(
      ServerConfig config,
      ServerBuilder<?> builder,
      TlsCredentials tls,
      UnaryOperator<SegmentStore> decorate) {
    // The HTTP port serves /metrics too, so either port turns the registry on.
    Metrics metrics =
        config.ops().metricsEnabled() || config.http().enabled() ? new Metrics() : null;
    AtomicReference<ServerTokens> tokens = new AtomicReference<>();
    AutoCloseable ops =
        () -> {
          if (tokens.get() != null) {
            tokens.get().close();
          }
          if (metrics != null) {
            metrics.close();
          }
          if (tls != null) {
            tls.close();
          }
        };
    try {
      tokens.set(
          ServerTokens.from(
              config.ops(),
              Ticker.systemTicker(),
              metrics == null ? TokenMeters.NONE : metrics.tokenMeters(),
              ServerThreads::tokensRefresh));
      return DatabaseWiring.server(config, builder, metrics, tokens.get().access(), ops, decorate);
    } catch (RuntimeException | Error e) {
      // The metrics registry and the TLS refresh are already open; a server that never came to
      // be must not leave them behind.
      closeQuietly(ops);
      throw e;
    }
  }

  static void closeQuietly(AutoCloseable resource) {
    try {
      resource.close();
    } catch (Exception suppressed) {
      // Already failing: the first failure is the one to report.
    }
  }

  /**
   * The server over ready stores, engine and snowflake side: the API, health, idle-tag sweeper,
   * metrics gauges and HTTP routes are built here the same way for every caller.
   *
   * @param builder the transport, with any interceptors already added
   * @param schemaInit creates the schema when missing; retried until it succeeds
   * @param formats the formats' store and clock
   * @param engine builds the engine over {@code store} with the listeners it is given (the metrics'
   *     events and the idle sweeper's intake), which it must pass to its constructor
   * @param metrics the registry the HTTP ports serve and the engine reports to; null: none
   * @param resources closed last on {@link LeafServer#stop()}
   */
  public static LeafServer assemble(
      ServerBuilder<?> builder,
      ServerConfig config,
      Stores stores,
      Function<EngineListeners, SegmentAllocator> engine,
      Snowflake snowflake,
      Metrics metrics,
      AutoCloseable resources) {
    ServerTokens tokens =
        ServerTokens.from(
            config.ops(),
            Ticker.systemTicker(),
            metrics == null ? TokenMeters.NONE : metrics.tokenMeters(),
            ServerThreads::tokensRefresh);
    try {
      return assemble(
          builder,
          config,
          stores,
          engine,
          snowflake,
          metrics,
          tokens.access(),
          () -> {
            tokens.close();
            resources.close();
          });
    } catch (RuntimeException | Error e) {
      tokens.close();
      throw e;
    }
  }

  /**
   * {@link #assemble} with the token rule the HTTP routes follow ({@code access}, which the gRPC
   * token interceptor on {@code builder}, if any, shares).
   */
  public static LeafServer assemble(
      ServerBuilder<?> builder,
      ServerConfig config,
      Stores stores,
      Function<EngineListeners, SegmentAllocator> engine,
      Snowflake snowflake,
      Metrics metrics,
      TokenAccess access,
      AutoCloseable resources) {
    return assemble(
        builder, config, stores, engine, snowflake, metrics, access, resources, config.toString());
  }

  /** {@link #assemble}, the start line showing {@code settings}. */
  static LeafServer assemble(
      ServerBuilder<?> builder,
      ServerConfig config,
      Stores stores,
      Function<EngineListeners, SegmentAllocator> engine,
      Snowflake snowflake,
      Metrics metrics,
      TokenAccess access,
      AutoCloseable resources,
      String settings) {
    SegmentStore store = stores.segments();
    Stores.Formats formats = stores.formats();
    // The engine's listeners exist before it does, so each is a final field from the start.
    SweepIntake cached = new SweepIntake();
    SegmentAllocator allocator =
        engine.apply(new EngineListeners(metrics != null ? metrics : EngineEvents.NONE, cached));
    ServerHealth health =
        new ServerHealth(
            new ServerHealth.Database(store, stores.schemaInit(), allocator.ticker()),
            config.api().maxWatches(),
            allocator,
            snowflake.generator()::leaseValid,
            ServerThreads.healthMonitor());
    snowflake.reportLeaseTo(health::reportSnowflakeLease);
    IdleTagSweeper sweeper =
        new IdleTagSweeper(
            allocator,
            cached,
            config.sweep().idleTtl(),
            config.sweep().tick(),
            ServerThreads.idleSweeper());
    int queuedDbCalls = config.api().maxQueuedDbCalls();
    DatabaseCalls database =
        new DatabaseCalls(
            ServerThreads.databaseCalls(config.api().dbCallThreads(), queuedDbCalls),
            queuedDbCalls);
    ThreadPoolExecutor streamPump = ServerThreads.streamPump(config.api().maxStreams());
    FormattedIssuer issuer =
        new FormattedIssuer(
            allocator,
            store,
            formats.store(),
            config.formatKey(),
            database::execute,
            new FormattedIssuer.Numbering(formats.clock(), formats.region()));
    FormatAdmin formatAdmin =
        new FormatAdmin(store, formats.store(), config.formatKey(), issuer::formatChanged);
    TagAdmin admin =
        new TagAdmin(
            allocator, store, stores.ledger(), InstantSource.system(), database, formatAdmin);
    LeafGrpcService service =
        new LeafGrpcService(allocator, admin, config.api(), database, streamPump, issuer);
    Ordering ordering =
        stores.orderings().open(store, allocator, config, ServerThreads.tagLeases());
    if (metrics != null) {
      metrics.watchEngine(allocator, sweeper, health::databaseUp);
      metrics.watchSnowflake(snowflake);
      metrics.watchOrdering(ordering);
    }
    LeafServer.Parts parts =
        new LeafServer.Parts(
            new LeafServer.Segments(store, allocator, sweeper),
            health,
            service,
            snowflake,
            new HandBack(stores.ledger(), database::execute),
            ordering);
    AtomicReference<HttpEndpoints> bound = new AtomicReference<>();
    HttpRoutes routes =
        HttpWiring.routes(
            config,
            parts,
            issuer,
            metrics,
            access,
            () -> bound.get() == null ? 0 : bound.get().httpConnections());
    Supplier<HttpEndpoints> openHttp =
        () -> {
          bound.set(
              HttpEndpoints.start(
                  config.ops().metricsPort(), config.http(), metrics, routes, ServerThreads::http));
          return bound.get();
        };
    return new LeafServer(
        builder,
        parts,
        openHttp,
        () -> {
          streamPump.shutdownNow();
          database.close();
          resources.close();
        },
        config.api().shutdownGrace(),
        settings);
  }

  /**
   * The production snowflake side of {@code config} on {@code leases}: the real clocks, a lease
   * thread and a chunk timer of its own; {@code exclusive}: {@code leases} live in a database no
   * other process can open while this one has it (no quarantine).
   */
  public static Snowflake snowflake(
      ServerConfig config, WorkerLeaseStore leases, boolean exclusive) {
    SnowflakeConfig s = config.snowflake();
    ScheduledThreadPoolExecutor leaseThread = ServerThreads.scheduler("leaf-worker-lease");
    leaseThread.setRemoveOnCancelPolicy(true);
    ScheduledThreadPoolExecutor chunkTimer = ServerThreads.scheduler("leaf-snowflake-timer");
    return new Snowflake(
        leases,
        s.layout(),
        new Snowflake.Workers(s.fromId(), s.toId(), s.leaseTtl()),
        new Snowflake.Clocks(InstantSource.system(), Ticker.systemTicker()),
        new Snowflake.Threads(leaseThread, chunkTimer),
        new Snowflake.Options(exclusive, s.maxClientLeases()));
  }
}
