package io.leaf.server.wiring;

import com.google.common.base.Ticker;
import io.grpc.InsecureServerCredentials;
import io.grpc.ServerBuilder;
import io.grpc.ServerCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.leaf.server.LeafServer;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.config.TlsConfig;
import io.leaf.server.engine.EngineListeners;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.formats.FormatStore;
import io.leaf.server.ledger.Ledger;
import io.leaf.server.metrics.Metrics;
import io.leaf.server.ordering.OrderingSource;
import io.leaf.server.region.Region;
import io.leaf.server.security.ServerTokens;
import io.leaf.server.security.TlsCredentials;
import io.leaf.server.security.TokenAccess;
import io.leaf.server.security.TokenMeters;
import io.leaf.server.snowflake.Snowflake;
import io.leaf.server.snowflake.SnowflakeConfig;
import io.leaf.server.snowflake.WorkerLeaseStore;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.threads.ServerThreads;
import java.net.InetSocketAddress;
import java.time.InstantSource;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Builds one {@link LeafServer} for a configuration: by default it opens the database {@code
 * --db-url} names (production); given {@link #stores}, {@link #engine} and {@link #snowflake} (all
 * three) it assembles the same server over those instead.
 *
 * <p>When {@link #build()} fails, what it opened is closed again (the pool, the metrics registry,
 * the TLS refresh, the tokens); given {@link #resources} are closed only by {@link
 * LeafServer#stop()}.
 *
 * <p>Production: Netty on {@code --port} (TLS when configured, at most {@code
 * --max-calls-per-connection} concurrent calls per connection) unless {@link #transport} gives
 * another, HikariCP on {@code --db-url}, metrics when {@code --metrics-port} or the HTTP port is
 * on, tokens from the flags. Over ready parts: the same API, health, idle-tag sweeper, metrics
 * gauges and HTTP routes over what was given, on the given transport.
 *
 * <p>Threading (of what it builds): calls that must touch the database run on a bounded {@link
 * io.leaf.server.grpc.DatabaseCalls}, segment loads on the engine's loader threads, NextIdBatch's
 * encoding on a stream pump of half the cores, and calls waiting for a segment hold no thread at
 * all. Every thread is a named daemon made by {@link ServerThreads} and shut down by {@link
 * LeafServer#stop()} (with or after the part using it). A builder is used by one thread.
 */
public final class LeafServerBuilder {

  /**
   * What a server reads and writes, handed to {@link LeafServerBuilder#stores}: the segments it
   * serves (a region's and any decorator's), the ledger over the same rows, the schema's creation
   * (retried until it succeeds), the formats and the tags' orderings.
   */
  public record Stores(
      SegmentStore segments,
      Ledger ledger,
      Runnable schemaInit,
      Formats formats,
      OrderingSource orderings) {

    /** Orderings in memory: this server alone. */
    public Stores(SegmentStore segments, Ledger ledger, Runnable schemaInit, Formats formats) {
      this(segments, ledger, schemaInit, formats, OrderingSource.inMemory());
    }

    /**
     * Where tags' formats are kept, the wall clock that picks each formatted number's period, and
     * the region whose rule turns a period row's IDs into sequences.
     */
    public record Formats(FormatStore store, InstantSource clock, Region region) {
      /** Without regions. */
      public Formats(FormatStore store, InstantSource clock) {
        this(store, clock, Region.NONE);
      }
    }
  }

  private final ServerConfig config;
  private ServerBuilder<?> transport;
  private UnaryOperator<SegmentStore> decorate;
  private Stores stores;
  private Function<EngineListeners, SegmentAllocator> engine;
  private Snowflake snowflake;
  private Metrics metrics;
  private TokenAccess access;
  private AutoCloseable resources;

  private LeafServerBuilder(ServerConfig config) {
    this.config = config;
  }

  /** A builder for the server {@code config} describes. */
  public static LeafServerBuilder forConfig(ServerConfig config) {
    return new LeafServerBuilder(config);
  }

  /**
   * The production snowflake side of {@code config} on {@code leases}: the real clocks, a lease
   * thread and a chunk timer of its own; {@code exclusive}: {@code leases} live in a database no
   * other process can open while this one has it (no quarantine).
   */
  public static Snowflake productionSnowflake(
      ServerConfig config, WorkerLeaseStore leases, boolean exclusive) {
    SnowflakeConfig s = config.idSpace().snowflake();
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

  /**
   * Serve on {@code transport}, with any interceptors already added, instead of Netty on {@code
   * --port}; required over ready parts. The production path then has no TLS (which needs the
   * builder to be made with its credentials) and adds its token and metrics interceptors to it.
   */
  public LeafServerBuilder transport(ServerBuilder<?> transport) {
    this.transport = transport;
    return this;
  }

  /**
   * Production only: the database store passes through {@code decorate} before the engine and the
   * API see it (a benchmark adds latency to segment loads this way; the server itself has no such
   * switch).
   */
  public LeafServerBuilder decorateStore(UnaryOperator<SegmentStore> decorate) {
    this.decorate = decorate;
    return this;
  }

  /**
   * Serve {@code stores} instead of opening the database (with {@link #engine}, {@link
   * #snowflake}).
   */
  public LeafServerBuilder stores(Stores stores) {
    this.stores = stores;
    return this;
  }

  /**
   * Over ready parts: builds the engine over the stores' segments with the listeners it is given
   * (the metrics' events and the idle sweeper's intake), which it must pass to its constructor.
   */
  public LeafServerBuilder engine(Function<EngineListeners, SegmentAllocator> engine) {
    this.engine = engine;
    return this;
  }

  /** Over ready parts: the snowflake side ({@link #productionSnowflake} makes production's). */
  public LeafServerBuilder snowflake(Snowflake snowflake) {
    this.snowflake = snowflake;
    return this;
  }

  /**
   * Over ready parts: the registry the HTTP ports serve and the engine reports to (default: none).
   */
  public LeafServerBuilder metrics(Metrics metrics) {
    this.metrics = metrics;
    return this;
  }

  /**
   * Over ready parts: the token rule the HTTP routes follow, which the gRPC token interceptor on
   * the transport, if any, shares (default: tokens from the flags, closed with the server).
   */
  public LeafServerBuilder tokenAccess(TokenAccess access) {
    this.access = access;
    return this;
  }

  /** Over ready parts: closed last on {@link LeafServer#stop()} (not when building fails). */
  public LeafServerBuilder resources(AutoCloseable resources) {
    this.resources = resources;
    return this;
  }

  /**
   * The server, not started.
   *
   * @throws IllegalArgumentException one line naming the flag (or file) that cannot be used
   * @throws IllegalStateException when some of the ready parts were given but not all, or an option
   *     the path taken does not use
   */
  public LeafServer build() {
    if (stores == null && engine == null && snowflake == null) {
      refuseIf(
          metrics != null || access != null || resources != null,
          "metrics, tokenAccess and resources are for a server over ready parts");
      return production();
    }
    refuseIf(
        stores == null || engine == null || snowflake == null,
        "stores, engine and snowflake are given together");
    refuseIf(transport == null, "a server over ready parts needs a transport");
    refuseIf(decorate != null, "decorateStore is for the database the production path opens");
    return overReadyParts();
  }

  private static void refuseIf(boolean refused, String why) {
    if (refused) {
      throw new IllegalStateException(why);
    }
  }

  private LeafServer production() {
    if (transport != null) {
      return production(transport, null);
    }
    TlsConfig tlsConfig = config.ops().tls();
    TlsCredentials tls =
        tlsConfig.enabled() ? TlsCredentials.load(tlsConfig, ServerThreads.tlsRefresh()) : null;
    ServerCredentials credentials =
        tls != null ? tls.credentials() : InsecureServerCredentials.create();
    return production(
        NettyServerBuilder.forAddress(new InetSocketAddress(config.api().port()), credentials),
        tls);
  }

  /** The production graph on {@code on}; {@code tls}, when not null, is closed with it. */
  private LeafServer production(ServerBuilder<?> on, TlsCredentials tls) {
    // The HTTP port serves /metrics too, so either port turns the registry on.
    Metrics registry =
        config.ops().metricsEnabled() || config.http().enabled() ? new Metrics() : null;
    AtomicReference<ServerTokens> tokens = new AtomicReference<>();
    AutoCloseable ops =
        () -> {
          if (tokens.get() != null) {
            tokens.get().close();
          }
          if (registry != null) {
            registry.close();
          }
          if (tls != null) {
            tls.close();
          }
        };
    try {
      tokens.set(tokensOf(registry));
      return DatabaseWiring.server(
          config,
          on,
          registry,
          tokens.get().access(),
          ops,
          decorate != null ? decorate : UnaryOperator.identity());
    } catch (RuntimeException | Error e) {
      // The metrics registry and the TLS refresh are already open; a server that never came to
      // be must not leave them behind.
      ServerWiring.closeQuietly(ops);
      throw e;
    }
  }

  /** Over ready parts; tokens made here from the flags are closed again if assembling fails. */
  private LeafServer overReadyParts() {
    ServerWiring.Ready parts = new ServerWiring.Ready(stores, engine, snowflake, metrics);
    AutoCloseable given = resources != null ? resources : () -> {};
    String shown = config.toString();
    if (access != null) {
      return ServerWiring.assemble(transport, config, parts, access, given, shown);
    }
    ServerTokens tokens = tokensOf(metrics);
    try {
      return ServerWiring.assemble(
          transport,
          config,
          parts,
          tokens.access(),
          () -> {
            tokens.close();
            given.close();
          },
          shown);
    } catch (RuntimeException | Error e) {
      tokens.close();
      throw e;
    }
  }

  private ServerTokens tokensOf(Metrics registry) {
    return ServerTokens.from(
        config.ops().tokens(),
        Ticker.systemTicker(),
        registry == null ? TokenMeters.NONE : registry.tokenMeters(),
        ServerThreads::tokensRefresh);
  }
}
