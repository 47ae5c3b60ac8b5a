package io.leaf.server.wiring;

import com.zaxxer.hikari.HikariDataSource;
import io.grpc.ServerBuilder;
import io.grpc.ServerInterceptor;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.leaf.server.LeafServer;
import io.leaf.server.config.DatabaseConfig;
import io.leaf.server.config.OpsConfig;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.db.H2Url;
import io.leaf.server.engine.CoarseTicker;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.engine.EngineThreads;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.formats.JooqFormatStore;
import io.leaf.server.grpc.ConnectionLimits;
import io.leaf.server.grpc.LeafGrpcService;
import io.leaf.server.ledger.DatabaseLedger;
import io.leaf.server.ledger.LedgerRetention;
import io.leaf.server.ledger.LedgerSettings;
import io.leaf.server.ledger.RecordedTakes;
import io.leaf.server.ledger.ServerIdentity;
import io.leaf.server.metrics.Metrics;
import io.leaf.server.ordering.OrderingSource;
import io.leaf.server.region.JooqRegionStore;
import io.leaf.server.region.RegionalLedger;
import io.leaf.server.region.RegionalSegmentStore;
import io.leaf.server.region.RegionalWorkerLeaseStore;
import io.leaf.server.security.TokenAccess;
import io.leaf.server.security.TokenAuthInterceptor;
import io.leaf.server.snowflake.JooqWorkerLeaseStore;
import io.leaf.server.snowflake.Snowflake;
import io.leaf.server.store.DataSources;
import io.leaf.server.store.JooqSegmentStore;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.TakeGuard;
import io.leaf.server.threads.ServerThreads;
import io.leaf.server.wiring.LeafServerBuilder.Stores;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.UnaryOperator;

/**
 * The production graph on its database: the pool, the stores with their guards (region fence,
 * ledger), the snowflake side and the engine's threads, handed to {@link ServerWiring#assemble}
 * (for {@link LeafServerBuilder}'s production path).
 */
final class DatabaseWiring {

  /** Precision of the engine's clock: last access, back-off and dynamic-step timing. */
  private static final Duration TICKER_RESOLUTION = Duration.ofMillis(1);

  private DatabaseWiring() {}

  /**
   * The server on {@code config}'s database over {@code builder}; {@code ops} (tokens, metrics,
   * TLS) is closed with it, or at once when the graph cannot be finished.
   */
  static LeafServer server(
      ServerConfig config,
      ServerBuilder<?> builder,
      Metrics metrics,
      TokenAccess access,
      AutoCloseable ops,
      UnaryOperator<SegmentStore> decorate) {
    // Refused before the pool, the lease thread and the engine exist: nothing to leave behind.
    LeafGrpcService.checkStreamMemory(config.api().streams().maxMemory());
    intercept(builder, config.ops(), access, metrics);
    if (builder instanceof NettyServerBuilder netty) {
      ConnectionLimits.apply(netty, config.api());
    }
    DatabaseConfig db = config.database();
    HikariDataSource pool =
        DataSources.create(db.url(), db.user(), db.password(), config.connections());
    // What is open so far, closed in reverse if the graph cannot be finished.
    java.util.Deque<AutoCloseable> opened = new java.util.ArrayDeque<>();
    opened.push(pool);
    try {
      if (metrics != null) {
        metrics.watchPool(pool);
      }
      var dialect = DataSources.dialectOf(db.url());
      String identity = ServerIdentity.of(config.api().port());
      LedgerSettings ledger =
          config.segments().ledger().on() ? LedgerSettings.on(identity) : LedgerSettings.OFF;
      // Every take checks leaf_region (or its absence) in its own transaction.
      JooqSegmentStore store =
          new JooqSegmentStore(
              pool,
              dialect,
              InstantSource.system(),
              TakeGuard.both(
                  RegionalSegmentStore.fence(config.idSpace().region()),
                  new RecordedTakes(ledger, InstantSource.system())));
      DatabaseLedger ledgerStore = new DatabaseLedger(store, ledger);
      JooqFormatStore formats = new JooqFormatStore(pool, dialect, InstantSource.system());
      // Every way an ID leaves goes through the region's store, even without --region: it
      // refuses a database set up for a region until the check has passed.
      RegionalSegmentStore regional =
          new RegionalSegmentStore(
              store,
              config.idSpace().region(),
              new JooqRegionStore(pool, dialect, InstantSource.system()));
      // No worker ID is leased before the region check passed either.
      Snowflake snowflake =
          LeafServerBuilder.productionSnowflake(
              config,
              new RegionalWorkerLeaseStore(
                  new JooqWorkerLeaseStore(pool, dialect, InstantSource.system()), regional),
              H2Url.exclusive(db.url()));
      opened.push(snowflake);
      SegmentStore served = decorate.apply(regional);
      List<ExecutorService> threads = new ArrayList<>();
      opened.push(() -> threads.forEach(ExecutorService::shutdownNow));
      ScheduledExecutorService tick = ServerThreads.scheduler("leaf-coarse-ticker");
      threads.add(tick);
      CoarseTicker ticker = new CoarseTicker(TICKER_RESOLUTION, tick);
      if (ledger.on()) {
        ScheduledThreadPoolExecutor pruning = ServerThreads.scheduler("leaf-ledger-retention");
        threads.add(pruning);
        new LedgerRetention(
                ledgerStore::deleteBefore,
                config.segments().ledger().retention(),
                InstantSource.system(),
                pruning)
            .start();
      }
      EngineConfig engine = config.engine(EngineConfig.DEFAULTS);
      Runnable schemaInit =
          () -> {
            store.createSchemaIfMissing();
            regional.verify();
            formats.createSchemaIfAllowed();
          };
      EngineThreads engineThreads = ServerThreads.engineThreads(engine, threads::add);
      // With --ledger off the store refuses WhoIssued and hands back without a record.
      Stores stores =
          new Stores(
              served,
              new RegionalLedger(ledgerStore, regional),
              schemaInit,
              new Stores.Formats(formats, InstantSource.system(), config.idSpace().region()),
              OrderingSource.database(pool, dialect));
      return ServerWiring.assemble(
          builder,
          config,
          new ServerWiring.Ready(
              stores,
              listeners -> new SegmentAllocator(served, ticker, engine, engineThreads, listeners),
              snowflake,
              metrics),
          access,
          () -> {
            // After the engine's close, before the connection pool its loads use.
            threads.forEach(ExecutorService::shutdownNow);
            try {
              DataSources.close(pool, db.url());
            } finally {
              ops.close();
            }
          },
          config + " server=" + identity);
    } catch (RuntimeException | Error e) {
      while (!opened.isEmpty()) {
        ServerWiring.closeQuietly(opened.pop());
      }
      throw e;
    }
  }

  /** The token check, then the metrics interceptors (outermost: they see refusals too). */
  private static void intercept(
      ServerBuilder<?> builder, OpsConfig ops, TokenAccess access, Metrics metrics) {
    if (ops.tokens().enabled()) {
      builder.intercept(new TokenAuthInterceptor(access));
    }
    if (metrics != null) {
      for (ServerInterceptor interceptor : metrics.interceptors()) {
        builder.intercept(interceptor);
      }
    }
  }
}
