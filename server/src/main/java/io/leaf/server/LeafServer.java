package io.leaf.server;

import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerInterceptors;
import io.grpc.protobuf.services.ProtoReflectionService;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.engine.UnissuedRun;
import io.leaf.server.grpc.LeafGrpcService;
import io.leaf.server.grpc.MalformedRequests;
import io.leaf.server.grpc.SnowflakeGrpcService;
import io.leaf.server.health.ServerHealth;
import io.leaf.server.health.StartGate;
import io.leaf.server.http.HttpEndpoints;
import io.leaf.server.ledger.HandBack;
import io.leaf.server.logging.LogLevels;
import io.leaf.server.logging.TransportLogs;
import io.leaf.server.ordering.Ordering;
import io.leaf.server.snowflake.Snowflake;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.UnusableTableException;
import io.leaf.server.sweep.IdleTagSweeper;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Leaf server's lifecycle: starts the gRPC port, the HTTP ports and the background work of
 * ready collaborators, and stops them within a bounded grace period.
 *
 * <p>Serves LeafService, SnowflakeService, server reflection and the standard health service. Every
 * collaborator arrives built ({@link io.leaf.server.wiring.LeafServerBuilder} makes the production
 * graph, tests build the same graph over other stores); this class only orders their start and
 * their stop.
 *
 * <p>Threading: every service runs on the transport's threads (a direct executor); no handler
 * blocks. Health (readiness) means "this server can issue IDs", through database outages too; the
 * database's own state is {@value #DATABASE_HEALTH} (see {@link ServerHealth}).
 */
public final class LeafServer {

  private static final Logger log = LoggerFactory.getLogger(LeafServer.class);
  private static final Logger startLog = LoggerFactory.getLogger(LogLevels.START_LOGGER);

  /** The health service name that reports whether the database answers (for alerting). */
  public static final String DATABASE_HEALTH = ServerHealth.DATABASE;

  /**
   * The segment IDs' parts: the store the API and the engine use, the engine (closed with the
   * server) and the sweeper that evicts idle tags (started and closed with the server).
   */
  public record Segments(SegmentStore store, SegmentAllocator allocator, IdleTagSweeper sweeper) {}

  /**
   * What a server runs, each built and ready.
   *
   * @param segments the store, the engine and the idle-tag sweeper
   * @param health readiness and the database check; started and closed with the server
   * @param service LeafService
   * @param snowflake the snowflake IDs' generator and lease keeper; started and closed with the
   *     server
   * @param handBack returns the engine's unissued IDs at a graceful stop
   * @param ordering wraps LeafService so STRICT tags keep real-time order; started and closed with
   *     the server
   */
  public record Parts(
      Segments segments,
      ServerHealth health,
      LeafGrpcService service,
      Snowflake snowflake,
      HandBack handBack,
      Ordering ordering) {

    /** The store the API and the engine use. */
    public SegmentStore store() {
      return segments.store();
    }

    /** The engine; closed with the server. */
    public SegmentAllocator allocator() {
      return segments.allocator();
    }

    /** Evicts idle tags; started and closed with the server. */
    public IdleTagSweeper sweeper() {
      return segments.sweeper();
    }
  }

  /** The hand-back's least budget, even when the calls used up {@code --shutdown-grace}. */
  static final Duration MIN_HAND_BACK = Duration.ofSeconds(1);

  private final Server server;
  private final Parts parts;

  /** Holds the calls that arrive before the start-up checks have run. */
  private final StartGate gate = new StartGate();

  private final Supplier<HttpEndpoints> openHttp;
  private final AutoCloseable resources;
  private final Duration shutdownGrace;

  /** What the start line shows of the configuration (no secrets). */
  private final String settings;

  /** The HTTP ports, bound by {@link #start()}; null before. */
  private volatile HttpEndpoints http;

  private volatile boolean stopped;

  /** The port was bound (a start that failed before it stops without a "stopped" line). */
  private volatile boolean listening;

  /**
   * @param builder where to serve (Netty in production, in-process in tests), with its
   *     interceptors; set to a direct executor here, since no handler blocks
   * @param openHttp binds the HTTP ports on {@link #start()}; throws {@link
   *     IllegalArgumentException} naming the flag of a port that cannot be bound
   * @param resources closed last on {@link #stop()} (the call pools, the connection pool, the
   *     engine's ticker)
   * @param shutdownGrace how long in-flight calls get to finish on {@link #stop()}
   * @param settings the configuration as the start line shows it
   */
  public LeafServer(
      ServerBuilder<?> builder,
      Parts parts,
      Supplier<HttpEndpoints> openHttp,
      AutoCloseable resources,
      Duration shutdownGrace,
      String settings) {
    TransportLogs.install();
    this.parts = parts;
    this.openHttp = openHttp;
    this.resources = resources;
    this.shutdownGrace = shutdownGrace;
    this.settings = settings;
    // Calls of IDs wait for the start-up checks; health and reflection answer at once.
    this.server =
        builder
            .directExecutor()
            .addService(
                ServerInterceptors.intercept(
                    MalformedRequests.guard(parts.ordering().wrap(parts.service())), gate))
            .addService(
                ServerInterceptors.intercept(
                    MalformedRequests.guard(
                        new SnowflakeGrpcService(parts.snowflake(), parts.service()).bindService()),
                    gate))
            .addService(parts.health().service())
            .addService(ProtoReflectionServiceV1.newInstance())
            .addService(ProtoReflectionService.newInstance())
            .build();
  }

  /**
   * Binds the port, then checks the database (the port first: a server that cannot listen exits
   * without touching the database), then binds the HTTP ports and starts the background work. A
   * call that arrives before all that is done waits for it ({@link StartGate}), within its own
   * deadline.
   *
   * @throws IOException the port cannot be bound
   * @throws IllegalArgumentException an HTTP port cannot be bound; the server is stopped
   * @throws UnusableTableException the database answers but its {@code leaf_alloc} cannot be used;
   *     the server is stopped (a database that does not answer yet is retried instead)
   */
  public LeafServer start() throws IOException {
    try {
      server.start();
    } catch (IOException e) {
      stop();
      throw e;
    }
    listening = true;
    parts.ordering().boundTo(server.getPort());
    try {
      parts.health().checkAtStart();
      http = openHttp.get();
      parts.sweeper().start();
      parts.snowflake().start();
      parts.ordering().start();
      parts.health().startMonitor();
      gate.open();
    } catch (Throwable e) {
      // Whatever failed, nothing of a server that did not start stays bound or running.
      stop();
      throw e;
    }
    startLog.info("Leaf listening on port {} ({})", server.getPort(), settings);
    return this;
  }

  /**
   * Stops accepting calls, lets in-flight calls finish within the grace period, then stops the
   * idle-tag sweeper, the snowflake side and the engine, hands the engine's unissued IDs back
   * ({@link HandBack}, within what is left of the grace period, at least {@link #MIN_HAND_BACK})
   * and closes the resources. Idempotent.
   */
  public synchronized void stop() {
    if (stopped) {
      return;
    }
    stopped = true;
    long stopNanos = System.nanoTime();
    gate.close("the server is stopping");
    ServerHealth health = parts.health();
    health.shutdown();
    server.shutdown();
    health.closeWatches();
    try {
      if (!server.awaitTermination(shutdownGrace.toMillis(), TimeUnit.MILLISECONDS)) {
        log.warn("calls still running after {}; cancelling them", shutdownGrace);
        server.shutdownNow();
        server.awaitTermination(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    }
    HttpEndpoints ports = http;
    if (ports != null) {
      closeLogged("the HTTP ports", ports::close);
    }
    closeLogged("the idle-tag sweeper", parts.sweeper()::close);
    closeLogged("the tag leases", parts.ordering()::close);
    // After the calls: it stops issuing and gives the worker ID back while the pool is open.
    closeLogged("the snowflake side", parts.snowflake()::close);
    closeLogged("the engine", parts.allocator()::close);
    if (listening) {
      closeLogged("the hand-back", () -> handBack(stopNanos));
    }
    closeLogged("the server's resources", resources);
    if (listening) {
      log.info("Leaf stopped");
    }
  }

  /** Freezes the closed engine and hands back what it held unissued. */
  private void handBack(long stopNanos) {
    List<UnissuedRun> runs = parts.allocator().freeze();
    Duration left = shutdownGrace.minusNanos(System.nanoTime() - stopNanos);
    parts.handBack().run(runs, left.compareTo(MIN_HAND_BACK) < 0 ? MIN_HAND_BACK : left);
  }

  /** Closes one part; a failure is logged and never keeps the parts after it open. */
  private static void closeLogged(String what, AutoCloseable part) {
    try {
      part.close();
    } catch (Exception | Error e) {
      log.warn("closing {} failed", what, e);
    }
  }

  /** Waits until the server has stopped. */
  public void awaitTermination() throws InterruptedException {
    server.awaitTermination();
  }

  /** The bound port (useful with port 0). */
  public int port() {
    return server.getPort();
  }

  /** The HTTP ports, once started; null before {@link #start()}. */
  public HttpEndpoints http() {
    return http;
  }

  /** The store the API and the engine use. */
  public SegmentStore store() {
    return parts.store();
  }

  public SegmentAllocator allocator() {
    return parts.allocator();
  }

  public IdleTagSweeper sweeper() {
    return parts.sweeper();
  }

  public LeafGrpcService service() {
    return parts.service();
  }

  public Snowflake snowflake() {
    return parts.snowflake();
  }

  /**
   * Runs {@code handler} when a check after start finds the database unusable (see {@link
   * ServerHealth#onUnusableLater}); call before {@link #start()}.
   */
  public LeafServer onUnusableLater(Consumer<UnusableTableException> handler) {
    parts.health().onUnusableLater(handler);
    return this;
  }

  /** Whether the database answered the last check. */
  public boolean databaseUp() {
    return parts.health().databaseUp();
  }

  /** Runs the periodic database check now (tests; the monitor thread runs it every 2 s). */
  public void checkDatabaseNow() {
    parts.health().checkNow();
  }
}
