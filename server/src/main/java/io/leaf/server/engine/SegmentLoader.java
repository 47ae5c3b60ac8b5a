package io.leaf.server.engine;

import com.google.common.base.Ticker;
import io.leaf.server.store.IdOverflowException;
import io.leaf.server.store.SegmentRange;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.StoreUnavailableException;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.Lock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the segment loads of every tag, at most one per tag at a time, and installs what they bring;
 * the calls waiting on a load are woken when it ends.
 *
 * <p>A load brings the next segment, or the failure and its back-off, or, for a tag that holds no
 * segment here (its first load failed), its removal and a {@link MissingTags} entry.
 *
 * <p>Two bounded budgets, so that tags this server is not serving cannot take the capacity of the
 * tags it is: loads of tags that hold a segment (preloads, reloads) run on {@link
 * EngineThreads#loads()}; first loads of tags it holds nothing for run on {@link
 * EngineThreads#firstLoads()}, and once its queue is full are refused with RESOURCE_EXHAUSTED at
 * once. Both executors are injected and stay their maker's to shut down.
 *
 * <p>Thread-safety: {@link #start} and {@link #maybePreload}'s decision run under the tag's stripe
 * lock; a load's result is installed under it too, and waiters are completed after it is released.
 */
final class SegmentLoader {

  static final String FIRST_LOAD_FLAG = "--max-queued-first-loads";
  static final String LOAD_QUEUE_FLAG = "--max-queued-loads";
  private static final Logger log = LoggerFactory.getLogger(SegmentLoader.class);

  private final LoadFailures failures;
  private final SegmentStore store;
  private final Ticker ticker;
  private final EngineConfig config;
  private final StepPolicy policy;
  private final PrefetchPolicy prefetch;

  /** The prefetch of a step-limited tag: one load at a time, so none finishes out of order. */
  private final PrefetchPolicy oneAhead;

  private final TagTable tags;
  private final SegmentWaiters waiters;
  private final Executor served;
  private final Executor firstLoads;
  private volatile boolean closed;

  SegmentLoader(
      SegmentStore store,
      Ticker ticker,
      EngineConfig config,
      TagTable tags,
      SegmentWaiters waiters,
      EngineThreads threads) {
    this.store = store;
    this.ticker = ticker;
    this.config = config;
    this.policy = new StepPolicy(config.maxStep());
    this.prefetch = PrefetchPolicy.DEFAULT;
    this.oneAhead = new PrefetchPolicy(prefetch.safety(), 1);
    this.tags = tags;
    this.waiters = waiters;
    this.served = threads.loads();
    this.firstLoads = threads.firstLoads();
    this.failures = new LoadFailures(ticker, config, tags);
  }

  StepPolicy policy() {
    return policy;
  }

  /**
   * Starts a load of the tag; the caller holds the stripe lock and has checked that the tag needs
   * it (none is pending, or the prefetch policy asks for one more).
   *
   * @throws LimitExceededException a first load found its budget full (the empty buffer is dropped)
   * @throws LimitExceededException the loader of served tags has {@code loaderQueue} loads queued
   */
  void start(TagBuffer b, long now) {
    if (closed) {
      throw new ServerClosingException();
    }
    // A tag dropped by the idle sweeper is not new: it reloads with the tags this server serves.
    boolean first = !b.isLoaded() && !tags.served().contains(b.bizTag());
    int step = tags.stepLimits().cap(b.bizTag(), b.stepForNextLoad(now, policy));
    int epoch = b.stepEpoch();
    CompletableFuture<Void> done = new CompletableFuture<>();
    try {
      (first ? firstLoads : served).execute(() -> load(b, first, step, epoch, now, done));
    } catch (RejectedExecutionException e) {
      if (closed) {
        throw new ServerClosingException();
      }
      if (!b.isLoaded()) {
        // Nothing waits on a buffer that never loaded and has no load: it holds no memory.
        tags.removeLocked(b);
      }
      if (first) {
        throw new LimitExceededException(
            "too many first loads of tags this server holds no"
                + " segment of are waiting for the database",
            config.firstLoads().queue(),
            FIRST_LOAD_FLAG);
      }
      throw new LimitExceededException(
          "too many segment loads are waiting for the database",
          config.loaders().queue(),
          LOAD_QUEUE_FLAG);
    }
    b.onLoadStarted(done);
  }

  /**
   * Starts the loads {@link PrefetchPolicy} asks for once a caller passed {@code seg}'s preload
   * point (Leaf's 10%); at most one caller per segment gets past the claim, and none while the tag
   * backs off.
   */
  void maybePreload(TagBuffer b, Segment seg, long now) {
    // Checked before claiming so that, while a failed preload backs off, callers neither take
    // the lock nor use up the claim.
    if (b.backingOff(now) || !seg.claimPreload()) {
      return;
    }
    Lock lock = tags.lock(b.bizTag());
    lock.lock();
    try {
      // A caller that was descheduled past the switch holds an old segment: the current one
      // claims its own preload at its own 10%, which keeps the dynamic step's timing true.
      if (closed || b.isClosed() || b.current() != seg) {
        return;
      }
      if (b.backingOff(now)) {
        seg.rearmPreload();
        return;
      }
      prefetchLocked(b, now, true);
    } catch (RuntimeException e) {
      // Saturated or closing: the caller already has its ID, and the tag loads when it runs dry.
      log.debug("preload of {} not started: {}", b.bizTag(), e.getMessage());
    } finally {
      lock.unlock();
    }
  }

  /** After a switch to a queued segment: starts the loads the prefetch policy asks for. */
  void prefetch(TagBuffer b, long now) {
    Lock lock = tags.lock(b.bizTag());
    lock.lock();
    try {
      prefetchLocked(b, now, false);
    } catch (RuntimeException e) {
      // Saturated or closing: the tag loads when it runs dry.
      log.debug("prefetch of {} not started: {}", b.bizTag(), e.getMessage());
    } finally {
      lock.unlock();
    }
  }

  /**
   * Starts loads while {@link PrefetchPolicy} asks for one more; each raises the segments ahead, so
   * at most its lookahead are queued or loading. A step-limited tag (a formatted period row) has a
   * lookahead of one: loads side by side can finish out of order, and a segment arriving below the
   * current one is dropped, numbers a width-bounded row cannot spare. The caller holds the stripe
   * lock.
   */
  private void prefetchLocked(TagBuffer b, long now, boolean pastPreloadPoint) {
    PrefetchPolicy p = tags.stepLimits().has(b.bizTag()) ? oneAhead : prefetch;
    while (!closed && b.wantsPrefetch(now, policy, p, pastPreloadPoint)) {
      start(b, now);
    }
  }

  /**
   * Starts no more loads, and a queued load that runs after this fails without touching the store;
   * loads in flight end when their maker shuts the executors down (as failed, interrupted).
   */
  void close() {
    closed = true;
  }

  /**
   * A grown dynamic step that would pass 2^63-1 falls back to the table's own step, so a tag near
   * the top still issues every ID the table step can reach before OUT_OF_RANGE.
   */
  private SegmentRange takeSegment(String bizTag, int step) {
    try {
      return store.nextSegment(bizTag, step);
    } catch (IdOverflowException e) {
      if (step == SegmentStore.TABLE_STEP) {
        throw e;
      }
      return store.nextSegment(bizTag, SegmentStore.TABLE_STEP);
    }
  }

  private void load(
      TagBuffer b,
      boolean first,
      int step,
      int epoch,
      long startedNanos,
      CompletableFuture<Void> done) {
    if (closed) {
      // Its waiters were failed by the allocator's close; the store is not asked.
      done.completeExceptionally(new ServerClosingException());
      return;
    }
    SegmentRange range = null;
    RuntimeException failure = null;
    int answered = tags.answeredEpoch();
    // The store's own time, at full precision: the engine's ticker is coarse.
    long storeStart = System.nanoTime();
    try {
      range = tags.rewinds().take(b.bizTag(), step, false, s -> takeSegment(b.bizTag(), s));
    } catch (RuntimeException e) {
      failure = e;
    } catch (Error e) {
      failure = new IllegalStateException("segment load failed", e);
      throw e;
    } finally {
      // Waiters wake up whatever happened above, so none waits until its deadline in vain.
      long storeNanos = System.nanoTime() - storeStart;
      // An outage's failure that lands after the server's check saw the database answer again
      // (the check ended the back-offs before it) begins none: issuing resumes within one check.
      boolean outageOver =
          failure instanceof StoreUnavailableException && tags.answeredEpoch() != answered;
      Outcome outcome = finishLoad(b, range, failure, outageOver, epoch, startedNanos);
      if (outcome.warning() != null) {
        failures.warnLimited(outcome.warning());
      }
      if (outcome.dropped() != null) {
        log.debug(
            "segment [{}, {}) of {} arrived below the one in use; dropped",
            outcome.dropped().start,
            outcome.dropped().end,
            b.bizTag());
        tags.events().segmentDropped();
      }
      tags.events().segmentLoaded(first, storeNanos, failure);
      if (failure == null) {
        done.complete(null);
      } else {
        done.completeExceptionally(failure);
      }
      waiters.wakeAll(outcome.woken(), outcome.failure());
    }
  }

  /**
   * The calls to wake after a load, the failure they end with (null: they try again), the warning
   * to log once the stripe lock is released (null: none) and the segment dropped because it landed
   * below the one in use (null: none); transport threads take the same locks, so nothing slow such
   * as a log write happens while one is held.
   */
  private record Outcome(
      Set<WaitingCall> woken, RuntimeException failure, String warning, Segment dropped) {
    Outcome(Set<WaitingCall> woken, RuntimeException failure) {
      this(woken, failure, null, null);
    }
  }

  /** Applies the load's {@link LoadOutcome} under the stripe lock. */
  private Outcome finishLoad(
      TagBuffer b,
      SegmentRange range,
      RuntimeException failure,
      boolean outageOver,
      int epoch,
      long startedNanos) {
    Lock lock = tags.lock(b.bizTag());
    lock.lock();
    try {
      Set<WaitingCall> woken = b.onLoadFinished();
      LoadOutcome outcome = b.outcomeOf(range);
      switch (outcome) {
        case EVICTED, BELOW_FLOOR -> {
          // A gap; the waiters try again (on a fresh buffer, or with a fresh load).
          return new Outcome(woken, null);
        }
        case FIRST_BELOW_FLOOR -> {
          tags.removeLocked(b);
          return new Outcome(woken, null);
        }
        case FIRST_FAILED -> {
          return new Outcome(
              woken, failure, failures.firstFailedLocked(b, failure, outageOver), null);
        }
        case FAILED -> {
          return new Outcome(woken, failure, failures.failedLocked(b, failure, outageOver), null);
        }
        default -> {
          return new Outcome(woken, null, null, install(b, outcome, range, epoch, startedNanos));
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** A load brought {@code range}: installs or queues it; returns it when dropped as a gap. */
  private Segment install(
      TagBuffer b, LoadOutcome outcome, SegmentRange range, int epoch, long startedNanos) {
    if (!b.isLoaded()) {
      // A failed earlier first load of this name is over.
      tags.missing().remove(b.bizTag());
    }
    tags.keptLocked(b);
    tags.served().add(b.bizTag());
    long now = ticker.read();
    Segment dropped = b.onLoaded(outcome, range, startedNanos, epoch, now);
    try {
      prefetchLocked(b, now, false);
    } catch (RuntimeException e) {
      log.debug("prefetch of {} not started: {}", b.bizTag(), e.getMessage());
    }
    return dropped;
  }
}
