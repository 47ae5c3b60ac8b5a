package io.leaf.server.testing;

import com.google.common.base.Ticker;
import io.grpc.ServerBuilder;
import io.grpc.ServerInterceptor;
import io.grpc.inprocess.InProcessServerBuilder;
import io.leaf.server.LeafServer;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.engine.EngineEvents;
import io.leaf.server.engine.EngineListeners;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.formats.FormatStore;
import io.leaf.server.formats.MemoryFormatStore;
import io.leaf.server.ledger.Ledger;
import io.leaf.server.metrics.Metrics;
import io.leaf.server.ordering.OrderingSource;
import io.leaf.server.region.MemoryRegionStore;
import io.leaf.server.region.RegionalLedger;
import io.leaf.server.region.RegionalSegmentStore;
import io.leaf.server.security.TokenAccess;
import io.leaf.server.security.TokenAuthInterceptor;
import io.leaf.server.snowflake.MemoryWorkerLeaseStore;
import io.leaf.server.snowflake.Snowflake;
import io.leaf.server.snowflake.WorkerLeaseStore;
import io.leaf.server.store.ForwardingSegmentStore;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.wiring.LeafServerBuilder;
import io.leaf.server.wiring.LeafServerBuilder.Stores;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Builds a {@link LeafServer} for a test: the graph {@link LeafServerBuilder} makes, over the
 * stores, engine and transport the test chooses; whatever is not chosen is in memory (a {@link
 * MemorySegmentStore}, a {@link MemoryWorkerLeaseStore}: one server per lease store, never two).
 */
public final class TestServer {

  private ServerBuilder<?> transport;
  private String[] flags = new String[0];
  private SegmentStore store;
  private FormatStore formats;
  private InstantSource wallClock = InstantSource.system();
  private Runnable schemaInit = () -> {};
  private EngineEvents events;
  private Metrics metrics;
  private Ticker ticker = Ticker.systemTicker();
  private EngineConfig engine = EngineConfig.DEFAULTS;
  private WorkerLeaseStore leases;
  private Snowflake snowflake;
  private final List<ServerInterceptor> interceptors = new ArrayList<>();
  private TokenAccess access;
  private OrderingSource orderings;

  private TestServer(ServerBuilder<?> transport) {
    this.transport = transport;
  }

  /** A server on the in-process transport named {@code name}. */
  public static TestServer inProcess(String name) {
    return new TestServer(InProcessServerBuilder.forName(name));
  }

  /** A server on {@code transport} (Netty on a free port, say). */
  public static TestServer on(ServerBuilder<?> transport) {
    return new TestServer(transport);
  }

  /** The server's flags, parsed as the command line's are (the environment not read). */
  public TestServer flags(String... flags) {
    this.flags = flags;
    return this;
  }

  /** The store the engine and the API use, with the schema step run at start. */
  public TestServer store(SegmentStore store, Runnable schemaInit) {
    this.store = store;
    this.schemaInit = schemaInit;
    return this;
  }

  public TestServer store(SegmentStore store) {
    return store(store, () -> {});
  }

  /** Where the engine reports its loads, waits and missing-tag answers (instead of metrics). */
  public TestServer events(EngineEvents events) {
    this.events = events;
    return this;
  }

  /** The registry the engine reports to and the server's gauges live in (as production's). */
  public TestServer metrics(Metrics metrics) {
    this.metrics = metrics;
    return this;
  }

  public TestServer ticker(Ticker ticker) {
    this.ticker = ticker;
    return this;
  }

  /** The engine settings the flags are applied to (as {@link ServerConfig#engine} does). */
  public TestServer engine(EngineConfig engine) {
    this.engine = engine;
    return this;
  }

  /** Where the snowflake side leases its worker ID (with the production clocks). */
  public TestServer leases(WorkerLeaseStore leases) {
    this.leases = leases;
    return this;
  }

  /** A ready snowflake side (its own clocks and worker range). */
  public TestServer snowflake(Snowflake snowflake) {
    this.snowflake = snowflake;
    return this;
  }

  /** Formats kept in {@code formats} (default: in memory). */
  public TestServer formats(FormatStore formats) {
    this.formats = formats;
    return this;
  }

  /** Formatted numbers take their period and date from {@code clock} (default: the system's). */
  public TestServer wallClock(InstantSource clock) {
    this.wallClock = clock;
    return this;
  }

  /** Calls also pass through {@code interceptor} (to watch or refuse what the server sees). */
  public TestServer intercept(ServerInterceptor interceptor) {
    interceptors.add(interceptor);
    return this;
  }

  /**
   * Tokens as {@code access} decides them, on gRPC (its interceptor installed) and on HTTP; by
   * default HTTP follows the flags' tokens and gRPC checks none.
   */
  public TestServer access(TokenAccess access) {
    this.access = access;
    interceptors.add(new TokenAuthInterceptor(access));
    return this;
  }

  /** Tags' orderings kept in {@code orderings} (default: in memory, this server alone). */
  public TestServer orderings(OrderingSource orderings) {
    this.orderings = orderings;
    return this;
  }

  /** The server, not started. */
  public LeafServer build() {
    ServerConfig config = ServerConfig.parse(flags, env -> null);
    SegmentStore given = store != null ? store : new MemorySegmentStore();
    // With --region, the region's store over the test's (its region recorded in memory).
    SegmentStore served =
        config.idSpace().region().isNone()
            ? given
            : new RegionalSegmentStore(
                given, config.idSpace().region(), new MemoryRegionStore(given));
    EngineConfig settings = config.engine(engine);
    EngineThreadsFixture threads = new EngineThreadsFixture(settings);
    Function<EngineListeners, SegmentAllocator> engineOf =
        listeners ->
            new SegmentAllocator(
                served,
                ticker,
                settings,
                threads.threads(),
                events == null ? listeners : listeners.withEvents(events));
    Snowflake side =
        snowflake != null
            ? snowflake
            : LeafServerBuilder.productionSnowflake(
                config,
                leases != null ? leases : new MemoryWorkerLeaseStore(InstantSource.system()),
                false);
    interceptors.forEach(transport::intercept);
    Stores.Formats kept =
        new Stores.Formats(
            formats != null ? formats : new MemoryFormatStore(),
            wallClock,
            config.idSpace().region());
    Stores stores =
        new Stores(
            served,
            ledgerOf(given, served),
            schemaInit,
            kept,
            orderings != null ? orderings : OrderingSource.inMemory());
    return LeafServerBuilder.forConfig(config)
        .transport(transport)
        .stores(stores)
        .engine(engineOf)
        .snowflake(side)
        .metrics(metrics)
        .tokenAccess(access)
        .resources(threads)
        .build();
  }

  /**
   * The ledger of the test's store: the store itself when it keeps one (a memory or database store,
   * or a decorator over one), the region's over it with {@code --region}; else none.
   */
  private static Ledger ledgerOf(SegmentStore given, SegmentStore served) {
    SegmentStore s = given;
    while (!(s instanceof Ledger) && s instanceof ForwardingSegmentStore f) {
      s = f.delegate();
    }
    Ledger local = s instanceof Ledger l ? l : LedgeredStore.ledgerOff(s);
    return served instanceof RegionalSegmentStore regional
        ? new RegionalLedger(local, regional)
        : local;
  }

  /** The server, started. */
  public LeafServer start() throws Exception {
    return build().start();
  }
}
