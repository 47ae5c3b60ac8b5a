package io.leaf.server.wiring;

import io.grpc.ServerBuilder;
import io.leaf.server.LeafServer;
import io.leaf.server.config.HttpConfig;
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
import io.leaf.server.http.IdEndpoints;
import io.leaf.server.http.LedgerEndpoint;
import io.leaf.server.http.MonitorData;
import io.leaf.server.http.MonitorPage;
import io.leaf.server.http.SnowflakeIds;
import io.leaf.server.http.UuidEndpoint;
import io.leaf.server.http.WorkerLeaseView;
import io.leaf.server.ledger.HandBack;
import io.leaf.server.metrics.Metrics;
import io.leaf.server.ordering.Ordering;
import io.leaf.server.security.TokenAccess;
import io.leaf.server.snowflake.Snowflake;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.sweep.IdleTagSweeper;
import io.leaf.server.sweep.SweepIntake;
import io.leaf.server.threads.ServerThreads;
import io.leaf.server.uuid.Uuids;
import io.leaf.server.wiring.LeafServerBuilder.Stores;
import java.security.SecureRandom;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The assembly behind {@link LeafServerBuilder}: the API, health, idle-tag sweeper, metrics gauges
 * and HTTP routes over ready stores, engine and snowflake side, built the same way for every
 * caller.
 *
 * <p>Threading (of what it builds): calls that must touch the database run on a bounded {@link
 * DatabaseCalls}, NextIdBatch's encoding on a stream pump of half the cores, each made by {@link
 * ServerThreads}, handed to its part's constructor here and shut down by {@link LeafServer#stop()}
 * (with or after the part using it).
 */
final class ServerWiring {

  private ServerWiring() {}

  /**
   * The parts a server is assembled over.
   *
   * @param engine builds the engine over the stores' segments with the listeners it is given (the
   *     metrics' events and the idle sweeper's intake), which it must pass to its constructor
   * @param metrics the registry the HTTP ports serve and the engine reports to; null: none
   */
  record Ready(
      Stores stores,
      Function<EngineListeners, SegmentAllocator> engine,
      Snowflake snowflake,
      Metrics metrics) {}

  static void closeQuietly(AutoCloseable resource) {
    try {
      resource.close();
    } catch (Exception suppressed) {
      // Already failing: the first failure is the one to report.
    }
  }

  /**
   * The server over {@code ready} on {@code builder} (with any interceptors already added), the
   * HTTP routes following {@code access} (which the gRPC token interceptor, if any, shares); {@code
   * resources} are closed last on {@link LeafServer#stop()}, the start line shows {@code settings}.
   */
  static LeafServer assemble(
      ServerBuilder<?> builder,
      ServerConfig config,
      Ready ready,
      TokenAccess access,
      AutoCloseable resources,
      String settings) {
    Stores stores = ready.stores();
    Snowflake snowflake = ready.snowflake();
    Metrics metrics = ready.metrics();
    SegmentStore store = stores.segments();
    Stores.Formats formats = stores.formats();
    // The engine's listeners exist before it does, so each is a final field from the start.
    SweepIntake cached = new SweepIntake();
    EngineListeners listeners =
        new EngineListeners(metrics != null ? metrics : EngineEvents.NONE, cached);
    SegmentAllocator allocator = ready.engine().apply(listeners);
    ServerHealth health =
        new ServerHealth(
            new ServerHealth.Database(store, stores.schemaInit(), allocator.ticker()),
            config.api().streams().maxWatches(),
            allocator,
            snowflake.generator()::leaseValid,
            ServerThreads.healthMonitor());
    snowflake.reportLeaseTo(health::reportSnowflakeLease);
    IdleTagSweeper sweeper =
        new IdleTagSweeper(
            allocator,
            cached,
            config.segments().sweep().idleTtl(),
            config.segments().sweep().tick(),
            ServerThreads.idleSweeper());
    int queuedDbCalls = config.api().dbCalls().maxQueued();
    DatabaseCalls database =
        new DatabaseCalls(
            ServerThreads.databaseCalls(config.api().dbCalls().threads(), queuedDbCalls),
            queuedDbCalls);
    ThreadPoolExecutor streamPump = ServerThreads.streamPump(config.api().streams().maxStreams());
    FormattedIssuer issuer =
        new FormattedIssuer(
            allocator,
            store,
            formats.store(),
            config.idSpace().formatKey(),
            database::execute,
            new FormattedIssuer.Numbering(formats.clock(), formats.region()));
    FormatAdmin formatAdmin =
        new FormatAdmin(
            store, formats.store(), config.idSpace().formatKey(), issuer::formatChanged);
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
        routes(
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
   * What {@code --http-port} serves: Meituan Leaf's ID routes, the formatted-number route, the
   * monitor page with its limits, and {@code /metrics}.
   */
  private static HttpRoutes routes(
      ServerConfig config,
      LeafServer.Parts parts,
      FormattedIssuer issuer,
      Metrics metrics,
      TokenAccess access,
      LongSupplier httpConnections) {
    HttpRoutes routes = new HttpRoutes();
    if (metrics != null) {
      routes.get("/metrics", HttpEndpoints.metricsRoute(metrics));
    }
    SegmentAllocator allocator = parts.allocator();
    LeafGrpcService service = parts.service();
    new IdEndpoints(
            allocator,
            config.api().calls().maxWait(),
            new IdEndpoints.Issuers(SnowflakeIds.of(parts.snowflake()), issuer, parts.ordering()),
            access,
            metrics == null ? flag -> {} : metrics::limitRefused)
        .addTo(routes);
    new LedgerEndpoint(service::whoIssued, access).addTo(routes);
    new UuidEndpoint(
            new Uuids(parts.snowflake(), new SecureRandom())::next,
            access,
            metrics == null ? flag -> {} : metrics::limitRefused)
        .addTo(routes);
    List<MonitorData.Limit> limits =
        List.of(
            new MonitorData.Limit(
                "--max-waiting", config.segments().engine().maxWaiting(), allocator::waitingCalls),
            new MonitorData.Limit(
                "--max-streams", config.api().streams().maxStreams(), service::openStreams),
            new MonitorData.Limit(
                "--max-stream-memory", service.streamMemoryBytes(), service::streamMemoryUsedBytes),
            new MonitorData.Limit("--max-watches", config.api().streams().maxWatches(), null),
            new MonitorData.Limit(
                "--max-queued-loads", config.segments().engine().loaders().queue(), null),
            new MonitorData.Limit(
                "--max-queued-first-loads", config.segments().engine().firstLoads().queue(), null),
            new MonitorData.Limit(
                "--max-queued-db-calls", config.api().dbCalls().maxQueued(), null),
            new MonitorData.Limit(
                HttpConfig.MAX_CONNECTIONS_FLAG, config.http().maxConnections(), httpConnections));
    new MonitorPage(
            new MonitorData(
                allocator,
                parts.health()::databaseUp,
                limits,
                metrics == null ? Map::of : metrics::refusals,
                WorkerLeaseView.of(parts.snowflake()),
                new MonitorData.TagViews(issuer::view, parts.ordering()::describe)),
            config.ops().monitorPublic() ? null : access)
        .addTo(routes);
    return routes;
  }
}
