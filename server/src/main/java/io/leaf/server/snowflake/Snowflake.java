package io.leaf.server.snowflake;

import com.google.common.base.Ticker;
import io.leaf.server.engine.IdRanges;
import io.leaf.server.engine.ServerClosingException;
import java.net.InetAddress;
import java.time.Duration;
import java.time.InstantSource;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issues the server's snowflake IDs, one or a chunk at a time, without ever parking a caller's
 * thread, while a worker lease is held for them in the background.
 *
 * <p>One {@link SnowflakeGenerator} whose worker lease a {@link WorkerLeaseKeeper} holds from a
 * thread of its own, plus a timer that resumes stream chunks which found the sequence used up.
 *
 * <p>Both schedulers are handed over at construction: {@link #close()} shuts them down after
 * releasing the lease on the lease scheduler. Production passes one-thread executors ({@code
 * LeafServerBuilder.productionSnowflake}); tests pass a scheduler driven by a fake clock.
 *
 * <p>Thread-safe.
 */
public final class Snowflake implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Snowflake.class);

  /** Fewer years left than this and the server warns at start. */
  static final double WARN_YEARS_LEFT = 5;

  private static final double MS_PER_YEAR = 365.2425 * 24 * 3600 * 1000;

  private final SnowflakeGenerator generator;
  private final WorkerLeaseKeeper keeper;
  private final ClientLeases clients;
  private final InstantSource wall;

  /** Runs the keeper's steps one at a time; must run one task at a time. */
  private final ScheduledExecutorService thread;

  /** Resumes stream chunks; apart from the keeper, whose database calls may take seconds. */
  private final ScheduledExecutorService timer;

  private volatile boolean closed;

  /** Told the lease's state after every lease step and every {@link #REPORT_EVERY_MS}. */
  private volatile Runnable leaseReport = () -> {};

  /** How often the lease's state is reported between steps (its validity ends on its own). */
  static final long REPORT_EVERY_MS = 250;

  private final AtomicBoolean reportFailureLogged = new AtomicBoolean();

  /**
   * The worker IDs this server may claim, {@code fromId} to {@code toId}, and how long a lease
   * lives without renewal ({@code ttl}).
   */
  public record Workers(int fromId, int toId, Duration ttl) {}

  /** The wall clock IDs carry and the monotonic ticker that times leases. */
  public record Clocks(InstantSource wall, Ticker monotonic) {}

  /**
   * The two schedulers, both owned by this object from now on: {@code leaseScheduler} runs the
   * lease steps, one at a time (their database calls may take seconds); {@code chunkTimer} resumes
   * stream chunks and reports the lease.
   */
  public record Threads(
      ScheduledExecutorService leaseScheduler, ScheduledExecutorService chunkTimer) {}

  /**
   * How leases are held: {@code exclusive} says the lease table's database is one no other process
   * can open while this one has it, so a claimed worker ID issues at once ({@link
   * WorkerLeaseKeeper}); {@code maxClientLeases} is the most worker leases clients may hold through
   * this server ({@link ClientLeases}), under the same rules and store as its own.
   */
  public record Options(boolean exclusive, int maxClientLeases) {}

  /** A snowflake over a shared lease table, with the default number of client leases. */
  public Snowflake(
      WorkerLeaseStore store,
      SnowflakeLayout layout,
      Workers workers,
      Clocks clocks,
      Threads threads) {
    this(store, layout, workers, clocks, threads, new Options(false, ClientLeases.DEFAULT_MAX));
  }

  /**
   * @param workers the worker IDs this server may claim and the lease TTL
   * @param clocks the wall clock and the monotonic ticker
   * @param threads the lease scheduler and the chunk timer; owned from now on
   * @param options whether the lease table is exclusive, and the client lease limit
   */
  public Snowflake(
      WorkerLeaseStore store,
      SnowflakeLayout layout,
      Workers workers,
      Clocks clocks,
      Threads threads,
      Options options) {
    InstantSource wall = clocks.wall();
    Ticker monotonic = clocks.monotonic();
    this.wall = wall;
    this.generator = new SnowflakeGenerator(layout, wall, monotonic);
    WorkerClaims claims =
        new WorkerClaims(
            store, layout, workers.fromId(), workers.toId(), workers.ttl(), options.exclusive());
    this.keeper = new WorkerLeaseKeeper(claims, generator, monotonic, ownerToken());
    this.clients = new ClientLeases(claims, generator, monotonic, options.maxClientLeases());
    this.thread = threads.leaseScheduler();
    this.timer = threads.chunkTimer();
  }

  /** Starts claiming a worker ID in the background; warns when the layout runs out soon. */
  public Snowflake start() {
    double left = yearsLeft();
    if (left < WARN_YEARS_LEFT) {
      log.warn(
          "the snowflake layout runs out in {} ({} years left): {}; plan a move to a later"
              + " --snowflake-epoch",
          generator.layout().endYear(),
          String.format("%.1f", left),
          generator.layout());
    } else {
      log.info("snowflake layout {}", generator.layout());
    }
    thread.execute(this::step);
    timer.scheduleWithFixedDelay(
        this::report, REPORT_EVERY_MS, REPORT_EVERY_MS, TimeUnit.MILLISECONDS);
    return this;
  }

  private void step() {
    if (closed) {
      return;
    }
    long next;
    try {
      next = keeper.step();
    } catch (Throwable e) {
      // Even an Error (a driver's LinkageError, an OutOfMemoryError in JDBC): the fence stops
      // issuing on its own, and the renewals must go on or snowflake IDs stop until a restart.
      log.warn("worker lease step failed; retrying in 1 s: {}", e.toString());
      next = TimeUnit.SECONDS.toNanos(1);
    }
    report();
    if (next != Long.MAX_VALUE && !closed) {
      try {
        thread.schedule(this::step, next, TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException e) {
        // Closing.
      }
    }
  }

  /**
   * Runs {@code report} after every claim, renewal or retry of the lease (on the lease thread) and
   * every {@value #REPORT_EVERY_MS} ms (on the timer thread, which no database call holds up), so
   * that it sees a lease that lapsed by itself too; call before {@link #start()}. A report that
   * throws is logged once and never stops the lease's renewals.
   */
  public void reportLeaseTo(Runnable report) {
    this.leaseReport = report;
  }

  private void report() {
    try {
      leaseReport.run();
    } catch (Throwable e) {
      // Even an Error: letting it out would end the renewals (or the periodic report) for good.
      if (reportFailureLogged.compareAndSet(false, true)) {
        log.warn(
            "reporting the worker lease's state failed (the lease itself is unaffected; logged"
                + " once): {}",
            e.toString());
      }
    }
  }

  /** One ID now, or the reason there is none (see {@link SnowflakeGenerator#next()}). */
  public long nextId() {
    return generator.next();
  }

  /**
   * Up to {@code max} IDs: at once when the sequence has them, else when the clock has moved on (a
   * timer, no thread waits). Fails as {@link #nextId()} does.
   */
  public CompletableFuture<IdRanges> nextIds(int max) {
    CompletableFuture<IdRanges> out = new CompletableFuture<>();
    fill(out, max);
    return out;
  }

  private void fill(CompletableFuture<IdRanges> out, int max) {
    if (out.isDone()) {
      return;
    }
    try {
      IdRanges ids = new IdRanges();
      if (generator.take(max, ids) > 0) {
        out.complete(ids);
        return;
      }
      if (closed) {
        throw new ServerClosingException();
      }
      // At most one pending per open stream (--max-streams bounds them).
      timer.schedule(() -> fill(out, max), 1, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      out.completeExceptionally(new ServerClosingException());
    } catch (RuntimeException e) {
      out.completeExceptionally(e);
    }
  }

  public SnowflakeLayout layout() {
    return generator.layout();
  }

  public SnowflakeGenerator generator() {
    return generator;
  }

  /** The worker leases clients hold through this server. */
  public ClientLeases clientLeases() {
    return clients;
  }

  /** Stored timestamps discarded at claim time (see {@link WorkerLeaseKeeper}). */
  public long discardedFloors() {
    return keeper.discardedFloors();
  }

  /** Years until the layout runs out, by the wall clock. */
  public double yearsLeft() {
    return (generator.layout().maxTimestampMs() - wall.millis()) / MS_PER_YEAR;
  }

  /**
   * Stops issuing, releases the worker ID (bounded: a few seconds at most) and shuts both
   * schedulers down.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      thread.submit(keeper::release).get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      log.warn("releasing the worker lease did not finish: {}", e.toString());
    }
    thread.shutdownNow();
    timer.shutdownNow();
  }

  /** A token unique to this process: host and pid for people, a random part for uniqueness. */
  static String ownerToken() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      host = "unknown";
    }
    if (host.length() > 60) {
      host = host.substring(0, 60);
    }
    long pid = ProcessHandle.current().pid();
    return host + ":" + pid + ":" + UUID.randomUUID();
  }
}
