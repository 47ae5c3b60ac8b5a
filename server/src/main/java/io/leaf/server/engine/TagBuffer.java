package io.leaf.server.engine;

import io.leaf.server.store.SegmentRange;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The buffer of one tag, changed only through its event methods: the segment IDs come from now, the
 * segments loaded ahead in ascending order, the loads in flight and the calls waiting on them.
 *
 * <p>The event methods: {@link #onLoadStarted}, {@link #onLoadFinished}, {@link #onLoaded}, {@link
 * #onLoadFailed}, {@link #onSegmentDrained}, {@link #raiseFloor}.
 *
 * <p>Thread-safety: the tag's stripe lock ({@link TagTable#lock}) guards every write and every
 * read, except four reads the request path makes without it: {@link #current()}, {@link
 * #isClosed()}, {@link #backingOff} (a volatile retry time) and the last-access time. The
 * last-access time is written on every request with an opaque store, the cheapest write another
 * thread (the idle sweeper) is still guaranteed to see eventually. The parts {@link DynamicStep},
 * {@link LoadBackoff}, {@link RateEstimate} and {@link SegmentQueue} live under the same lock.
 */
public final class TagBuffer {

  /** The last-access time is kept to this precision; idle TTLs are many times longer. */
  static final long TOUCH_RESOLUTION_NANOS = 1_000_000;

  private static final VarHandle LAST_ACCESS;

  static {
    try {
      LAST_ACCESS =
          MethodHandles.lookup().findVarHandle(TagBuffer.class, "lastAccessNanos", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final String bizTag;
  private final DynamicStep step = new DynamicStep();
  private final LoadBackoff backoff = new LoadBackoff();
  private final RateEstimate rate = new RateEstimate();

  private final SegmentQueue queue = new SegmentQueue();

  private volatile Segment current = Segment.EMPTY;

  /**
   * IDs below this were handed out by a reservation above the segments this buffer had loaded or
   * was loading; a segment below it is dropped (a gap), so the tag's IDs keep increasing here.
   */
  private long floor = Long.MIN_VALUE;

  private volatile boolean closed;

  /** Handed to the idle sweeper already. */
  private boolean announced;

  @SuppressWarnings("unused")
  private volatile long lastAccessNanos;

  private final TagLoads loads = new TagLoads();

  TagBuffer(String bizTag, long nowNanos) {
    this.bizTag = bizTag;
    this.lastAccessNanos = nowNanos;
  }

  public String bizTag() {
    return bizTag;
  }

  /**
   * The request path's only write besides the cursor, and only when the stored time is at least
   * {@link #TOUCH_RESOLUTION_NANOS} old: a store on every call would keep this object's cache line,
   * which also holds {@link #current}, moving between the cores serving the tag.
   */
  void touch(long nowNanos) {
    if (nowNanos - (long) LAST_ACCESS.getOpaque(this) >= TOUCH_RESOLUTION_NANOS) {
      LAST_ACCESS.setOpaque(this, nowNanos);
    }
  }

  public long lastAccessNanos() {
    return (long) LAST_ACCESS.getOpaque(this);
  }

  public boolean isClosed() {
    return closed;
  }

  /** The segment IDs come from now; {@link Segment#EMPTY} until the first load. Lock-free. */
  Segment current() {
    return current;
  }

  boolean isLoaded() {
    return current != Segment.EMPTY;
  }

  // ---- Table events (TagTable) ----

  /** True the first time: the buffer is handed to the idle sweeper once. */
  boolean announce() {
    boolean first = !announced;
    announced = true;
    return first;
  }

  boolean announced() {
    return announced;
  }

  /** Removed from the table: a request that raced onto it retries on a fresh buffer. */
  void close() {
    closed = true;
  }

  /**
   * {@code seen} (the segment a caller found) is used up: true when the caller should try again
   * (another thread switched, the buffer was closed, or this call made the queued segment current),
   * false when the tag must wait for a load.
   */
  boolean onSegmentDrained(Segment seen, long nowNanos) {
    if (closed || current != seen) {
      return true;
    }
    if (queue.peek() == null) {
      return false;
    }
    rate.switched(current, nowNanos);
    current = queue.poll();
    return true;
  }

  /**
   * IDs up to {@code end} were reserved above this tag's segments: queued segments and the rest of
   * the current one below it are dropped (a gap), and a load in flight below it is dropped too.
   */
  void raiseFloor(long end) {
    floor = Math.max(floor, end);
    queue.dropBelow(floor);
    Segment c = current;
    if (c != Segment.EMPTY && c.start < floor && !c.isExhausted()) {
      // Used up in place of the remaining IDs: the buffer stays loaded, and the next request
      // loads a segment above the floor.
      current = Segment.usedUp(c);
    }
  }

  /**
   * For the hand-back at a graceful stop, on a buffer already closed: seals every segment it holds
   * ({@link Segment#seal}), so no ID leaves them any more, and returns the unissued run that ends
   * at its highest segment; null when it holds none, or when a load is still in flight (it would
   * take the IDs handed back, and this server's guard would take that for a database gone back in
   * time: those IDs stay a gap).
   */
  UnissuedRun seal() {
    if (!closed) {
      throw new IllegalStateException("seal a closed buffer only: a load could still install");
    }
    if (!isLoaded()) {
      return null;
    }
    java.util.List<Segment> held = new java.util.ArrayList<>();
    held.add(current);
    held.addAll(queue.all());
    UnissuedRun run = UnissuedRun.seal(bizTag, held);
    return loads.inFlight() > 0 ? null : run;
  }

  // ---- Load events (SegmentLoader) ----

  /** The step to pass to the store for the next load. */
  int stepForNextLoad(long nowNanos, StepPolicy policy) {
    return step.forNextLoad(nowNanos, policy);
  }

  /** The epoch a load starts in, passed back to {@link #onLoaded}. */
  int stepEpoch() {
    return step.epoch();
  }

  /** A load was handed to a loader thread; {@code done} completes once its outcome is installed. */
  void onLoadStarted(CompletableFuture<Void> done) {
    loads.started(done);
  }

  /** A load ended: returns the calls that waited on it, to be woken once the lock is released. */
  Set<WaitingCall> onLoadFinished() {
    return loads.finished();
  }

  /**
   * What the load that brought {@code range} (null: it failed) does here; see {@link LoadOutcome}.
   */
  LoadOutcome outcomeOf(SegmentRange range) {
    Segment c = current;
    return LoadOutcome.of(
        new LoadOutcome.State(
            closed, c != Segment.EMPTY, floor, c.end, c.isExhausted(), queue.peek() != null),
        range);
  }

  /**
   * Applies {@link LoadOutcome#INSTALL}, {@link LoadOutcome#QUEUE} or {@link
   * LoadOutcome#BELOW_CURRENT}: ends the back-off, learns the step and latency, and installs or
   * queues the range. Returns the segment dropped as a gap, or null.
   */
  Segment onLoaded(
      LoadOutcome outcome, SegmentRange range, long startedNanos, int epoch, long nowNanos) {
    backoff.clear();
    step.onLoaded(range, startedNanos, epoch);
    rate.loadTook(nowNanos - startedNanos);
    Segment loaded = Segment.of(range);
    switch (outcome) {
      case INSTALL -> {
        rate.installed(current, nowNanos);
        current = loaded;
      }
      case QUEUE -> queue.add(loaded);
      case BELOW_CURRENT -> {
        return loaded;
      }
      default -> throw new IllegalArgumentException("not a load that brought a range: " + outcome);
    }
    return null;
  }

  /**
   * Applies {@link LoadOutcome#FAILED}: backs off and re-arms the preload, so a failed preload is
   * retried by the first request after the back-off rather than by a synchronous load when the
   * current segment runs out. Returns the failures in a row.
   */
  int onLoadFailed(
      RuntimeException failure, long nowNanos, long minBackoffNanos, long maxBackoffNanos) {
    backoff.onFailed(failure, nowNanos, minBackoffNanos, maxBackoffNanos);
    Segment c = current;
    if (c != Segment.EMPTY && queue.peek() == null && !c.isExhausted()) {
      c.rearmPreload();
    }
    return backoff.failures();
  }

  /**
   * True when the prefetch policy asks for one more load now (the tag is loaded, not backing off).
   */
  boolean wantsPrefetch(
      long nowNanos, StepPolicy steps, PrefetchPolicy prefetch, boolean pastPreloadPoint) {
    if (closed || !isLoaded() || backingOff(nowNanos)) {
      return false;
    }
    long loading = (long) loads.inFlight() * step.effective(nowNanos, steps);
    long idsLeft = current.end - current.cursor() + queue.ids();
    return prefetch.shouldLoad(
        idsLeft,
        loading,
        queue.size() + loads.inFlight(),
        pastPreloadPoint,
        rate.idsPerNano(),
        rate.loadNanos());
  }

  // ---- Requests (SegmentAllocator) ----

  /** The first load in flight, or null: a caller that finds none starts one. */
  CompletableFuture<Void> pendingLoad() {
    return loads.pending();
  }

  int loadsInFlight() {
    return loads.inFlight();
  }

  /** Loaded segments queued behind {@link #current}. */
  int queued() {
    return queue.size();
  }

  /**
   * IDs left in the current segment and the queued next one: a snapshot, since other callers may
   * take some at any moment; read without the lock.
   */
  long idsBuffered() {
    Segment c = current;
    Segment n = queue.peek();
    return c.end - c.cursor() + (n == null ? 0 : n.end - n.cursor());
  }

  /** A call found the current segment used up and nothing queued. */
  void ranDry(long nowNanos) {
    rate.ranDry(nowNanos);
  }

  /** True while the tag backs off after failed loads; lock-free. */
  boolean backingOff(long nowNanos) {
    return backoff.backingOff(nowNanos);
  }

  /** While backing off, the failure a caller gets at once instead of a new load. */
  RuntimeException failFast(long nowNanos) {
    return backoff.failFast(bizTag, nowNanos);
  }

  /** The database answers again: the next request (or preload) loads at once. */
  void clearBackoff() {
    backoff.clear();
  }

  /** UpdateStep: the very next load uses {@code newStep}. */
  void resetStep(int newStep) {
    step.reset(newStep);
  }

  /** What this buffer holds; the caller has checked it is loaded. */
  TagSnapshot snapshot(long nowNanos, StepPolicy policy) {
    Segment n = queue.peek();
    return new TagSnapshot(
        view(current),
        n == null ? null : view(n),
        step.effective(nowNanos, policy),
        lastAccessNanos(),
        step.lastLoadNanos());
  }

  private static TagSnapshot.SegmentView view(Segment s) {
    return new TagSnapshot.SegmentView(s.start, s.end, s.cursor());
  }

  // ---- Waiting calls (SegmentWaiters) ----

  /** The loads in flight and the calls waiting on the first of them. */
  TagLoads loads() {
    return loads;
  }
}
