package io.leaf.client;

import io.leaf.v1.WorkerLease;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Snowflake IDs made in this process at memory speed, under a worker ID leased from a Leaf server:
 * the server's layout and rules, so they never equal an ID of the server or of another client, and
 * {@link #next()} stops (throws {@link NoWorkerLeaseException}) rather than repeat one.
 *
 * <p>A thread of its own leases a worker ID ({@code LeaseWorker}, role {@code issue}), renews it
 * every third of its validity and leases another when it is lost. IDs are made only while the lease
 * is known valid by the monotonic clock (measured from when the last renewal the server
 * acknowledged was sent), after its quarantine, and at timestamps from the lease's floor (above
 * every ID an earlier holder of the worker made) to its ceiling (what the server stored for this
 * holder). A wall clock that steps back never repeats an ID: the timestamp stays at the last one
 * used and borrows ahead, as on the server. A new worker ID is quarantined for the server's {@code
 * --worker-lease-ttl} plus 1 s before its first ID ({@link #awaitReady}).
 *
 * <p>The lease calls always go to the client's first target (a lease lives in the memory of the
 * server that granted it). {@link #close()} releases the worker ID. Thread-safe; {@link #next()}
 * costs one short lock and two clock reads.
 */
public final class LocalSnowflakeIds implements AutoCloseable {

  private final LocalGenerator generator;
  private final WorkerLeaseRenewer renewer;
  private final ScheduledExecutorService thread;
  private volatile boolean closed;

  private LocalSnowflakeIds(Builder b) {
    this.generator = new LocalGenerator(b.wallMs, b.nanos);
    this.renewer = new WorkerLeaseRenewer(b.rpcs, generator, b.nanos);
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "leaf-local-snowflake-lease");
              t.setDaemon(true);
              return t;
            });
  }

  /** Snowflake IDs made locally under a worker ID leased through {@code client}. */
  public static Builder builder(LeafClient client) {
    return new Builder(Objects.requireNonNull(client, "client"));
  }

  /**
   * The next ID, greater than every ID this instance made before.
   *
   * @throws NoWorkerLeaseException no lease known valid now (leasing, quarantined, not renewed in
   *     time, lost) or the clock ran past what the lease covers; a later call may succeed
   */
  public long next() {
    if (closed) {
      throw new NoWorkerLeaseException("LocalSnowflakeIds is closed");
    }
    return generator.next();
  }

  /** Whether {@link #next()} would make an ID now as far as the lease is concerned. */
  public boolean ready() {
    return !closed && generator.ready();
  }

  /**
   * Waits up to {@code timeout} until IDs can be made (a first lease is quarantined for the
   * server's TTL plus 1 s).
   *
   * @return whether they can
   */
  public boolean awaitReady(Duration timeout) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    while (!ready()) {
      if (System.nanoTime() - end >= 0) {
        return false;
      }
      Thread.sleep(10);
    }
    return true;
  }

  /** The worker ID held, -1 without a lease. */
  public int workerId() {
    return generator.workerId();
  }

  private void start() {
    // The first lease on the caller's thread: a refused token fails the build at once.
    long next = renewer.step();
    thread.schedule(this::step, next, TimeUnit.NANOSECONDS);
  }

  private void step() {
    if (closed) {
      return;
    }
    long next;
    try {
      next = renewer.step();
    } catch (RuntimeException e) {
      // A refusal (permissions changed): next() says why; try again later.
      next = TimeUnit.SECONDS.toNanos(5);
    }
    if (!closed) {
      thread.schedule(this::step, next, TimeUnit.NANOSECONDS);
    }
  }

  /** Stops making IDs and releases the worker ID (waiting a few seconds at most). */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    generator.revoke("LocalSnowflakeIds is closed");
    try {
      thread.submit(renewer::release).get(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      // The lease ends with its TTL.
    }
    thread.shutdownNow();
  }

  /** Configures a {@link LocalSnowflakeIds}. */
  public static final class Builder {

    private WorkerLeaseRenewer.Rpcs rpcs;
    private LongSupplier wallMs = System::currentTimeMillis;
    private LongSupplier nanos = System::nanoTime;

    private Builder(LeafClient client) {
      LeafRpcs calls = client.rpcs();
      this.rpcs =
          new WorkerLeaseRenewer.Rpcs() {
            @Override
            public WorkerLease lease() {
              return calls.leaseWorker();
            }

            @Override
            public WorkerLease renew(String leaseId, boolean lapsed) {
              return calls.renewWorker(leaseId, lapsed);
            }

            @Override
            public void release(String leaseId) {
              calls.releaseWorker(leaseId);
            }
          };
    }

    /** The clocks, for tests: wall-clock milliseconds and a monotonic nanosecond ticker. */
    Builder clocks(LongSupplier wallMs, LongSupplier nanos) {
      this.wallMs = Objects.requireNonNull(wallMs);
      this.nanos = Objects.requireNonNull(nanos);
      return this;
    }

    /**
     * Leases a worker ID now and starts renewing it.
     *
     * @throws LeafException the server refuses worker leases to this client (PERMISSION_DENIED,
     *     UNAUTHENTICATED, UNIMPLEMENTED); other failures are retried in the background
     */
    public LocalSnowflakeIds build() {
      LocalSnowflakeIds ids = new LocalSnowflakeIds(this);
      try {
        ids.start();
      } catch (RuntimeException e) {
        ids.thread.shutdownNow();
        throw e;
      }
      return ids;
    }
  }
}
