package io.leaf.server;

import com.google.common.base.Ticker;
import com.google.common.util.concurrent.ThreadFactoryBuilder;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.UnusableTableException;
import io.leaf.v1.LeafServiceGrpc;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the standard health service reports. Readiness ({@code ""} and {@code leaf.v1.LeafService})
 * means "this server can issue IDs": NOT_SERVING until the start-up checks pass (the database
 * answered and {@code leaf_alloc} is usable), then SERVING through database outages (buffered IDs
 * keep flowing), and NOT_SERVING for good from the start of shutdown. The database's own state,
 * checked every two seconds, is {@value #DATABASE} and one log line per change.
 *
 * <p>Thread-safe: checks are serialized; the monitor thread runs them, tests may too.
 */
final class ServerHealth {

  private static final Logger log = LoggerFactory.getLogger(ServerHealth.class);
  /** The health service name that reports whether the database answers (for alerting). */
  static final String DATABASE = "leaf.database";
  private static final long PERIOD_MILLIS = 2_000;
  /** While the database stays down, its state is logged again at most this often. */
  private static final Duration DOWN_LOG_PERIOD = Duration.ofMinutes(1);

  private final SegmentStore store;
  private final Runnable schemaInit;
  private final HealthStatusManager health = new HealthStatusManager();
  private final HealthWatches watches;
  private final DatabaseState database;
  private final ScheduledExecutorService monitor = Executors.newSingleThreadScheduledExecutor(
      new ThreadFactoryBuilder().setNameFormat("leaf-health").setDaemon(true).build());
  private final Object checkLock = new Object();
  private volatile boolean schemaReady;
  /** The start-up checks passed: readiness is SERVING until shutdown. */
  private volatile boolean ready;
  private volatile boolean stopped;
  /** The last unusable-table reason logged (logged again only when it changes). */
  private String tableProblem;

  /** @param schemaInit creates the schema when missing; retried until it succeeds */
  /** @param maxWatches Health/Watch streams open at once ({@code --max-watches}) */
  ServerHealth(SegmentStore store, Runnable schemaInit, Ticker ticker, int maxWatches) {
    this.watches = new HealthWatches(maxWatches);
    this.store = store;
    this.schemaInit = schemaInit;
    this.database = new DatabaseState(ticker, DOWN_LOG_PERIOD);
    health.setStatus("", ServingStatus.NOT_SERVING);
    health.setStatus(LeafServiceGrpc.SERVICE_NAME, ServingStatus.NOT_SERVING);
    health.setStatus(DATABASE, ServingStatus.NOT_SERVING);
  }

  /** The health service, with its Watch streams tracked so that shutdown can end them. */
  ServerServiceDefinition service() {
    return ServerInterceptors.intercept(health.getHealthService(), watches);
  }

  /**
   * The first check, at start.
   *
   * @throws UnusableTableException the database answers but its {@code leaf_alloc} cannot be used
   */
  void checkAtStart() {
    check(true);
  }

  /** Checks every two seconds from now on. */
  void startMonitor() {
    monitor.scheduleWithFixedDelay(() -> check(false), PERIOD_MILLIS, PERIOD_MILLIS,
        TimeUnit.MILLISECONDS);
  }

  /** Runs the periodic check now. */
  void checkNow() {
    check(false);
  }

  boolean databaseUp() {
    return database.isUp();
  }

  /** NOT_SERVING for good, and no more checks. */
  void shutdown() {
    stopped = true;
    health.enterTerminalState();
    monitor.shutdownNow();
  }

  /**
   * Ends open Watch streams: they never end by themselves, and left open they would hold the
   * server for its whole grace period.
   */
  void closeWatches() {
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
      // The database answers; the table is what stops this server: not an outage to alert on.
      if (!e.getMessage().equals(tableProblem)) {
        tableProblem = e.getMessage();
        log.warn("leaf_alloc unusable; readiness stays NOT_SERVING: {}", e.getMessage());
      }
      health.setStatus(DATABASE, ServingStatus.SERVING);
      return;
    } catch (RuntimeException e) {
      failure = e;
    }
    if (stopped) {
      // Shutdown interrupted the check: what it saw says nothing about the database.
      return;
    }
    String line = database.observe(failure);
    if (line != null) {
      if (failure == null) {
        log.info(line);
      } else {
        log.warn(line);
      }
    }
    health.setStatus(DATABASE, failure == null ? ServingStatus.SERVING : ServingStatus.NOT_SERVING);
    if (failure == null && !ready) {
      ready = true;
      health.setStatus("", ServingStatus.SERVING);
      health.setStatus(LeafServiceGrpc.SERVICE_NAME, ServingStatus.SERVING);
    }
  }
}
