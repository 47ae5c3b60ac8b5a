package io.leaf.server.health;

import com.google.common.base.Ticker;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.StoreRejectedException;
import io.leaf.server.store.UnusableTableException;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.SnowflakeServiceGrpc;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the standard health service's statuses true to the server: its readiness, the database's
 * state and the snowflake side's, and tells the engine when the database is down.
 *
 * <p>Readiness ({@code ""} and {@code leaf.v1.LeafService}) means "this server can issue IDs":
 * NOT_SERVING until the start-up checks pass (the database answered and {@code leaf_alloc} is
 * usable), then SERVING through database outages (buffered IDs keep flowing) but NOT_SERVING while
 * a check finds the database unusable for this server (e.g. claimed for another region since), and
 * NOT_SERVING for good from the start of shutdown. The database's own state, checked every two
 * seconds (every half second while it is down), is {@value #DATABASE} and one log line per change.
 * Each check also tells the engine: while the database is known down, loads and database calls fail
 * at once; when it answers again, tags backing off load at once. {@code leaf.v1.SnowflakeService}
 * is SERVING while the server holds a worker lease known valid, as the snowflake side reports it.
 *
 * <p>Thread-safe: checks are serialized; the monitor runs them, tests may too. The monitor is the
 * scheduler it is given, shut down by {@link #shutdown()}.
 */
public final class ServerHealth {

  private static final Logger log = LoggerFactory.getLogger(ServerHealth.class);

  /** The health service name that reports whether the database answers (for alerting). */
  public static final String DATABASE = "leaf.database";

  /** Reported SERVING while this server holds a worker lease known valid (snowflake IDs). */
  static final String SNOWFLAKE = SnowflakeServiceGrpc.SERVICE_NAME;

  private static final long PERIOD_MILLIS = 2_000;

  /** While the database is down it is checked this often, so issuing resumes soon after. */
  private static final long DOWN_PERIOD_MILLIS = 500;

  /** While the database stays down, its state is logged again at most this often. */
  private static final Duration DOWN_LOG_PERIOD = Duration.ofMinutes(1);

  private final SegmentStore store;
  private final SegmentAllocator allocator;
  private final BooleanSupplier snowflakeLease;
  private final Runnable schemaInit;
  private final HealthStatusManager health = new HealthStatusManager();
  private final HealthWatches watches;
  private final DatabaseState database;
  private final ScheduledExecutorService monitor;
  private final Object checkLock = new Object();
  private volatile boolean schemaReady;

  /** The start-up checks passed: readiness is SERVING until shutdown. */
  private volatile boolean ready;

  private volatile boolean stopped;

  /** The last unusable-table reason logged (logged again only when it changes). */
  private String tableProblem;

  /** Told of an unusable table found before the first check passed (a start check run late). */
  private volatile Consumer<UnusableTableException> unusableLater = e -> {};

  /**
   * The database this server checks: its store, what creates the schema when missing (retried until
   * it succeeds), and the ticker that times how long it has been down.
   */
  public record Database(SegmentStore store, Runnable schemaInit, Ticker ticker) {}

  /**
   * @param database the store checked, its schema creation and the ticker timing outages
   * @param maxWatches Health/Watch streams open at once ({@code --max-watches})
   * @param allocator told what each check sees, so loads fail fast and recover at once
   * @param snowflakeLease whether snowflake IDs can be issued now (a worker lease known valid)
   * @param monitor runs the periodic checks; owned from now on (shut down by {@link #shutdown()})
   */
  public ServerHealth(
      Database database,
      int maxWatches,
      SegmentAllocator allocator,
      BooleanSupplier snowflakeLease,
      ScheduledExecutorService monitor) {
    this.allocator = allocator;
    this.monitor = monitor;
    this.snowflakeLease = snowflakeLease;
    this.watches = new HealthWatches(maxWatches);
    this.store = database.store();
    this.schemaInit = database.schemaInit();
    this.database = new DatabaseState(database.ticker(), DOWN_LOG_PERIOD);
    health.setStatus("", ServingStatus.NOT_SERVING);
    health.setStatus(LeafServiceGrpc.SERVICE_NAME, ServingStatus.NOT_SERVING);
    health.setStatus(DATABASE, ServingStatus.NOT_SERVING);
    health.setStatus(SNOWFLAKE, ServingStatus.NOT_SERVING);
  }

  /**
   * Reports the worker lease as it is now; {@link io.leaf.server.snowflake.Snowflake} calls it
   * after every lease step and every quarter second, so the status follows the lease, lapsed ones
   * included, within that (the RPCs themselves check the lease per call).
   */
  public synchronized void reportSnowflakeLease() {
    if (!stopped) {
      // After shutdown the manager is in its terminal state and ignores this anyway.
      health.setStatus(
          SNOWFLAKE,
          snowflakeLease.getAsBoolean() ? ServingStatus.SERVING : ServingStatus.NOT_SERVING);
    }
  }

  /** The health service, with its Watch streams tracked so that shutdown can end them. */
  public ServerServiceDefinition service() {
    return ServerInterceptors.intercept(health.getHealthService(), watches);
  }

  /**
   * The first check, at start.
   *
   * @throws UnusableTableException the database answers but its {@code leaf_alloc} cannot be used
   */
  public void checkAtStart() {
    check(true);
  }

  /**
   * Runs {@code handler} (on the monitor's thread) when a check after start, before any check
   * passed, finds the table unusable, e.g. a region check that could not run at start and then
   * fails; call before {@link #checkAtStart()}. Later findings turn readiness NOT_SERVING instead.
   */
  public void onUnusableLater(Consumer<UnusableTableException> handler) {
    this.unusableLater = handler;
  }

  /** Checks every two seconds from now on, every half second while the database is down. */
  public void startMonitor() {
    scheduleCheck(PERIOD_MILLIS);
  }

  private void scheduleCheck(long delayMillis) {
    try {
      monitor.schedule(
          () -> {
            try {
              check(false);
            } finally {
              if (!stopped) {
                scheduleCheck(database.isUp() ? PERIOD_MILLIS : DOWN_PERIOD_MILLIS);
              }
            }
          },
          delayMillis,
          TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // Shut down: no more checks.
    }
  }

  /** Runs the periodic check now. */
  public void checkNow() {
    check(false);
  }

  public boolean databaseUp() {
    return database.isUp();
  }

  /** NOT_SERVING for good, and no more checks. */
  public void shutdown() {
    stopped = true;
    health.enterTerminalState();
    monitor.shutdownNow();
  }

  /**
   * Ends open Watch streams: they never end by themselves, and left open they would hold the server
   * for its whole grace period.
   */
  public void closeWatches() {
    watches.closeAll();
  }

  private void check(boolean atStart) {
    synchronized (checkLock) {
      checkLocked(atStart);
    }
  }

  private void checkLocked(boolean atStart) {
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
      if (e.loginRefused()) {
        // Credentials rotated under a running server: an outage, not a table to fix.
        failure = e;
      } else {
        // The database answers; the table is what stops this server: not an outage to alert on.
        if (!java.util.Objects.equals(e.getMessage(), tableProblem)) {
          tableProblem = e.getMessage();
          log.warn("database unusable; readiness is NOT_SERVING: {}", e.getMessage());
        }
        health.setStatus(DATABASE, ServingStatus.SERVING);
        allocator.databaseAnswered();
        if (ready) {
          // E.g. another server claimed the database for a region: takes are refused, so say so.
          setReadiness(ServingStatus.NOT_SERVING);
        } else {
          unusableLater.accept(e);
        }
        return;
      }
    } catch (RuntimeException e) {
      failure = e;
    }
    if (stopped) {
      // Shutdown interrupted the check: what it saw says nothing about the database.
      return;
    }
    String line = database.observe(failure);
    if (failure == null || failure instanceof StoreRejectedException) {
      // A refusal answers (a privilege, a read-only server): loads report it themselves.
      allocator.databaseAnswered();
    } else {
      allocator.databaseDown(DatabaseState.reason(failure));
    }
    if (line != null) {
      if (failure == null) {
        log.info(line);
      } else {
        log.warn(line);
      }
    }
    health.setStatus(DATABASE, failure == null ? ServingStatus.SERVING : ServingStatus.NOT_SERVING);
    if (failure == null) {
      if (tableProblem != null) {
        log.info("database usable again: {} no longer holds", tableProblem);
        tableProblem = null;
      }
      ready = true;
      setReadiness(ServingStatus.SERVING);
    }
  }

  private void setReadiness(ServingStatus status) {
    health.setStatus("", status);
    health.setStatus(LeafServiceGrpc.SERVICE_NAME, status);
  }
}
