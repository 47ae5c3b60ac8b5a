package io.leaf.server.ledger;

import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the ledger to {@code --ledger-retention}: every {@link #PERIOD}, on a scheduler of its own
 * (never a request's thread), deletes the records older than the retention.
 *
 * <p>It deletes in statements of at most {@link #BATCH} rows, repeated until one deletes fewer, and
 * at most {@link #MAX_BATCHES} per round so a first round on a large backlog cannot hold a
 * connection for long.
 *
 * <p>The cutoff reads the wall clock: a clock that jumps only makes records live longer or shorter,
 * never changes an ID. Thread-safe; the scheduler's owner shuts it down.
 */
public final class LedgerRetention implements AutoCloseable {

  /** Deletes at most this many records older than a cutoff; returns how many it deleted. */
  public interface Pruner {
    int deleteBefore(long cutoffMillis, int limit);
  }

  static final int BATCH = 1_000;
  static final int MAX_BATCHES = 100;
  static final Duration PERIOD = Duration.ofMinutes(10);

  /** The first round waits this long after the start, away from the start's own work. */
  static final Duration FIRST_DELAY = Duration.ofMinutes(1);

  private static final Logger log = LoggerFactory.getLogger(LedgerRetention.class);

  private final Pruner pruner;
  private final Duration retention;
  private final InstantSource clock;
  private final ScheduledExecutorService scheduler;
  private volatile ScheduledFuture<?> task;

  public LedgerRetention(
      Pruner pruner, Duration retention, InstantSource clock, ScheduledExecutorService scheduler) {
    this.pruner = pruner;
    this.retention = retention;
    this.clock = clock;
    this.scheduler = scheduler;
  }

  /** Schedules the rounds. */
  public void start() {
    try {
      task =
          scheduler.scheduleWithFixedDelay(
              this::roundLogged, FIRST_DELAY.toMillis(), PERIOD.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // Shut down already: nothing to keep.
    }
  }

  private void roundLogged() {
    try {
      int deleted = round();
      if (deleted > 0) {
        log.info("deleted {} leaf_ledger records older than {}", deleted, retention);
      }
    } catch (RuntimeException e) {
      // The next round tries again; the ledger only grows meanwhile.
      log.warn("could not delete old leaf_ledger records: {}", e.getMessage());
    }
  }

  /** One round: batches of {@link #BATCH} until one deletes fewer; returns how many went. */
  public int round() {
    long cutoff = clock.millis() - retention.toMillis();
    int total = 0;
    for (int i = 0; i < MAX_BATCHES; i++) {
      int deleted = pruner.deleteBefore(cutoff, BATCH);
      total += deleted;
      if (deleted < BATCH) {
        break;
      }
    }
    return total;
  }

  @Override
  public void close() {
    ScheduledFuture<?> t = task;
    if (t != null) {
      t.cancel(false);
    }
  }
}
