package io.leaf.server.engine;

import com.google.common.base.Ticker;
import io.leaf.server.store.SegmentStore;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Predicate;

/**
 * Issues IDs of every tag from in-memory segments, loading each tag's next segments in the
 * background before it runs out. Never blocks: a call that finds no ID buffered waits on the tag's
 * pending load without holding a thread.
 *
 * <p>The next segment of a tag is loaded once 10% of the current one is used (Leaf-segment's double
 * buffer), and further ahead when the tag's rate and load latency call for it ({@link
 * PrefetchPolicy}).
 *
 * <p>Cost: {@link #tryNextId} is one map lookup, one ticker read and one {@code getAndAdd}, plus a
 * last-access write at most once per millisecond; no lock, no allocation, no database. The server
 * passes a {@link CoarseTicker}, so the ticker read is a volatile load. A batch takes one {@code
 * getAndAdd} per segment it spans.
 *
 * <p>When {@link #tryNextId} finds nothing, {@link #nextId} (through {@link IdTaker}) switches to a
 * loaded next segment or registers the call on the tag's pending load (starting one if none is),
 * bounded by {@link EngineConfig#maxWaiting()} and each call's {@link WaitDeadline}; the load's
 * completion resumes it on the loader thread.
 *
 * <p>Thread-safety: safe for any number of threads. Per-tag state changes (creation, switching
 * segments, registering waiters, installing loads, eviction) take one of a fixed set of striped
 * locks, so tags whose stripes differ never wait for each other, and no lock is ever held across
 * database I/O.
 */
public final class SegmentAllocator implements AutoCloseable {

  /** Returned by {@link #tryNextId} and {@link IdTaker#takeOne} when the tag has no ID buffered. */
  public static final long NO_ID = Segment.EXHAUSTED;

  private final Ticker ticker;
  private final TagTable tags;
  private final SegmentWaiters waiters;
  private final SegmentLoader loader;
  private final DeadlineTimer timer;
  private final RangeReservation reservations;
  private final DatabaseGate gate;
  private final IdTaker taker;

  /** An engine that reports to no one ({@link EngineListeners#NONE}) on {@code threads}. */
  public SegmentAllocator(
      SegmentStore store, Ticker ticker, EngineConfig config, EngineThreads threads) {
    this(store, ticker, config, threads, EngineListeners.NONE);
  }

  /**
   * @param threads what loads and deadlines run on; their maker shuts them down after {@link
   *     #close()}
   * @param listeners told of loads and handed cached buffers for the allocator's whole life
   */
  public SegmentAllocator(
      SegmentStore store,
      Ticker ticker,
      EngineConfig config,
      EngineThreads threads,
      EngineListeners listeners) {
    this.gate = new DatabaseGate();
    this.ticker = ticker;
    this.timer = threads.timer();
    this.tags =
        new TagTable(new MissingTags(config.missingTagTtl(), ticker), store::mayHold, listeners);
    this.waiters = new SegmentWaiters(config.maxWaiting(), ticker, timer);
    this.loader = new SegmentLoader(store, ticker, config, tags, waiters, threads);
    this.taker = new IdTaker(ticker, tags, loader, waiters, gate);
    this.reservations = new RangeReservation(this, taker, tags, store, ticker, timer);
  }

  /**
   * The server's database check saw the database fail: until {@link #databaseAnswered()}, a call
   * that would wait for a load fails at once with {@code reason} (the load still runs).
   */
  public void databaseDown(String reason) {
    gate.markDown(reason);
  }

  /**
   * The server's database check saw the database answer: after an outage, every tag that backs off
   * after failed loads may load at once, so issuing resumes within one check of its return whatever
   * the outage's length.
   */
  public void databaseAnswered() {
    if (gate.markUp()) {
      tags.clearBackoffs();
    }
  }

  /**
   * Runs {@code task} on the engine's deadline timer after {@code delayNanos}; returns its cancel.
   */
  public Runnable schedule(Runnable task, long delayNanos) {
    return timer.schedule(task, delayNanos);
  }

  /** The failure to answer at once while the database check sees the database down, or null. */
  public RuntimeException databaseKnownDown() {
    return gate.failure();
  }

  public Ticker ticker() {
    return ticker;
  }

  /** A wait of at most {@code timeoutNanos} from now. */
  public WaitDeadline deadline(long timeoutNanos, boolean callersDeadline) {
    return new WaitDeadline(ticker.read() + timeoutNanos, timeoutNanos, callersDeadline);
  }

  /**
   * One ID of a tag this server holds a segment of, or {@link #NO_ID}: the tag is not cached or its
   * current segment is used up. Lock-free and allocation-free; never waits.
   */
  public long tryNextId(String bizTag) {
    TagBuffer b = tags.get(bizTag);
    if (b == null || b.isClosed()) {
      return NO_ID;
    }
    long now = ticker.read();
    b.touch(now);
    Segment seg = b.current();
    long id = seg.take();
    if (id != Segment.EXHAUSTED && id >= seg.preloadAt) {
      loader.maybePreload(b, seg, now);
    }
    return id;
  }

  /**
   * One ID of {@code bizTag}, waiting for a segment when none is buffered. The future completes on
   * the thread that ends the wait (inline, a loader thread, the deadline timer); cancelling it
   * drops the wait. Failures: {@link SegmentWaitTimeoutException}, {@link LimitExceededException},
   * {@link ServerClosingException} and the store's exceptions (not found, overflow, outage).
   */
  public CompletableFuture<Long> nextId(String bizTag, WaitDeadline deadline) {
    return IdRequest.one(taker, bizTag, deadline);
  }

  /**
   * {@code count} IDs of {@code bizTag}, spanning as many segments as needed. On failure midway the
   * IDs already taken are lost (a gap), never issued again.
   */
  public CompletableFuture<IdRanges> nextIds(String bizTag, int count, WaitDeadline deadline) {
    if (count <= 0) {
      throw new IllegalArgumentException("count must be positive: " + count);
    }
    return IdRequest.many(taker, bizTag, count, deadline);
  }

  /**
   * Loads the tag's first segment if this server holds none; a tag already loaded is left as it is,
   * so no segment is consumed.
   */
  public CompletableFuture<Void> initCache(String bizTag, WaitDeadline deadline) {
    return IdRequest.loaded(taker, bizTag, deadline);
  }

  /**
   * {@code count} IDs of {@code bizTag} as at most 3 ranges: what its segments hold, and the rest
   * from one dedicated store write run on {@code database} (see {@link RangeReservation}).
   */
  public CompletableFuture<IdRanges> reserve(
      String bizTag, int count, WaitDeadline deadline, Executor database) {
    return reservations.reserve(bizTag, count, deadline, database);
  }

  /** The tags this allocator holds (tests in this package read its per-tag counts). */
  TagTable tags() {
    return tags;
  }

  /** Calls waiting for a segment now, server-wide. */
  public int waitingCalls() {
    return waiters.waiting();
  }

  /** CreateTag succeeded on this server: the tag is no longer remembered as missing. */
  public void tagCreated(String bizTag) {
    tags.missing().remove(bizTag);
  }

  /** UpdateStep's effect on a cached tag: the very next load uses {@code newStep}. */
  public void onStepUpdated(String bizTag, int newStep) {
    tags.resetStep(bizTag, newStep);
  }

  /**
   * Keeps the dynamic step of {@code bizTag} at most {@code maxStep} from its next load on, and its
   * loads one at a time (a formatted tag's period row: its numbers are bounded by a width, and
   * loads side by side may finish out of order, leaving the lower segment unused). Remembered for
   * the most recent 100,000 tags given one.
   */
  public void limitStep(String bizTag, int maxStep) {
    tags.stepLimits().set(bizTag, maxStep);
  }

  /** What this server holds for {@code bizTag}; empty when it holds nothing. */
  public Optional<TagSnapshot> snapshot(String bizTag) {
    return tags.snapshot(bizTag, ticker.read(), loader.policy());
  }

  /** The buffer of {@code bizTag} if this server holds one. */
  public Optional<TagBuffer> cached(String bizTag) {
    return Optional.ofNullable(tags.get(bizTag));
  }

  /**
   * The names of the tags this server holds a segment of, sorted, at most {@code max} of them (a
   * view for operators: the cost is one pass over the map). A first load in flight or failed is not
   * a tag held.
   */
  public List<String> cachedTags(int max) {
    return tags.heldNames(max);
  }

  /** {@link #cachedTags(int)} of the tags {@code visible} accepts (a caller's scope). */
  public List<String> cachedTags(int max, Predicate<String> visible) {
    return tags.heldNames(max, visible);
  }

  /** How many of the tags this server holds {@code visible} accepts: one pass over the map. */
  public int cachedCount(Predicate<String> visible) {
    return tags.held(visible);
  }

  /** How many tags this server holds a segment of; failed lookups never count. */
  public int cachedCount() {
    return tags.held();
  }

  /**
   * Drops {@code buffer} if the map still holds that very buffer, and closes it so requests that
   * raced onto it retry on a fresh one. Its segments are simply unused: gaps, never repeats.
   */
  public boolean evict(TagBuffer buffer) {
    return tags.remove(buffer);
  }

  /**
   * After {@link #close()}, at a graceful stop: no ID leaves this engine any more, and what each
   * tag held unissued at that moment is returned, one run per tag ending at the highest segment it
   * held (see {@link UnissuedRun}) — for the store's hand-back.
   *
   * @throws IllegalStateException the engine is not closed
   */
  public List<UnissuedRun> freeze() {
    if (!taker.isClosed()) {
      throw new IllegalStateException("freeze a closed engine only");
    }
    return StopPasses.sealAll(tags);
  }

  /** Stops loading; every waiting call fails with {@link ServerClosingException}. */
  @Override
  public void close() {
    taker.close();
    loader.close();
    for (Set<WaitingCall> ws : StopPasses.detachAllWaiters(tags)) {
      waiters.wakeAll(ws, new ServerClosingException());
    }
  }
}
