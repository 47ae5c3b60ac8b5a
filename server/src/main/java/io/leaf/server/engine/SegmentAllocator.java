package io.leaf.server.engine;

import com.google.common.base.Ticker;
import com.google.common.util.concurrent.Striped;
import com.google.common.util.concurrent.ThreadFactoryBuilder;
import io.leaf.server.store.IdOverflowException;
import io.leaf.server.store.SegmentRange;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.StoreUnavailableException;
import io.leaf.server.store.TagNotFoundException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issues IDs of every tag from in-memory segments, loading the next segment of a tag in the
 * background once 10% of the current one is used (Leaf-segment's double buffer).
 *
 * <p>Cost: an ID is one map lookup, one ticker read and one {@code getAndAdd}, plus a last-access
 * write at most once per millisecond; no lock and no database on that path. The server passes a
 * {@link CoarseTicker}, so the ticker read is a volatile load, not a clock call. A batch takes one
 * {@code getAndAdd} per segment it spans.
 *
 * <p>Thread-safety: safe for any number of threads. Per-tag state changes (creation, first load,
 * switching segments, eviction) take one of a fixed set of striped locks, so tags whose stripes
 * differ never wait for each other, and no lock is ever held across database I/O. Callers that
 * find both segments of a tag empty wait on the pending load's future, bounded by their timeout.
 */
public final class SegmentAllocator implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SegmentAllocator.class);
  /** Package-private so tests can find two tags that share a stripe. */
  static final int STRIPES = 256;

  private final SegmentStore store;
  private final Ticker ticker;
  private final EngineConfig config;
  private final StepPolicy policy;
  private final ConcurrentHashMap<String, TagBuffer> buffers = new ConcurrentHashMap<>();
  private final Striped<Lock> locks = Striped.lock(STRIPES);
  private final ThreadPoolExecutor loader;
  private volatile Consumer<TagBuffer> onCached = b -> { };
  private volatile boolean closed;

  public SegmentAllocator(SegmentStore store, Ticker ticker, EngineConfig config) {
    this.store = store;
    this.ticker = ticker;
    this.config = config;
    this.policy = new StepPolicy(config.maxStep());
    this.loader = new ThreadPoolExecutor(config.loaderThreads(), config.loaderThreads(),
        60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(config.loaderQueue()),
        new ThreadFactoryBuilder().setNameFormat("leaf-loader-%d").setDaemon(true).build());
    this.loader.allowCoreThreadTimeOut(true);
  }

  /** Called once for every buffer the allocator creates (the idle sweeper schedules it). */
  public void setOnCached(Consumer<TagBuffer> listener) {
    this.onCached = listener;
  }

  public Ticker ticker() {
    return ticker;
  }

  /**
   * One ID of {@code bizTag}.
   *
   * @param timeoutNanos how long to wait for a segment when none is buffered
   * @throws SegmentWaitTimeoutException no segment arrived in time
   * @throws io.leaf.server.store.LeafStoreException the load failed (not found, overflow, outage)
   */
  public long nextId(String bizTag, long timeoutNanos) {
    long now = ticker.read();
    long waitDeadline = 0;
    while (true) {
      TagBuffer b = buffer(bizTag, now);
      Segment seg = b.current;
      long id = seg.take();
      if (id != Segment.EXHAUSTED) {
        if (id >= seg.preloadAt) {
          maybePreload(b, seg, now);
        }
        return id;
      }
      if (waitDeadline == 0) {
        waitDeadline = System.nanoTime() + timeoutNanos;
      }
      awaitSegment(b, seg, waitDeadline, timeoutNanos);
      now = ticker.read();
    }
  }

  /**
   * {@code count} IDs of {@code bizTag}, spanning as many segments as needed.
   *
   * <p>On failure midway the IDs already taken are lost (a gap), never issued again.
   */
  public IdRanges nextIds(String bizTag, int count, long timeoutNanos) {
    if (count <= 0) {
      throw new IllegalArgumentException("count must be positive: " + count);
    }
    IdRanges out = new IdRanges();
    long remaining = count;
    long now = ticker.read();
    long waitDeadline = 0;
    while (remaining > 0) {
      TagBuffer b = buffer(bizTag, now);
      Segment seg = b.current;
      long first = seg.takeRange(remaining);
      if (first != Segment.EXHAUSTED) {
        long end = first + Math.min(remaining, seg.end - first);
        out.add(first, end);
        remaining -= end - first;
        if (end - 1 >= seg.preloadAt) {
          maybePreload(b, seg, now);
        }
        continue;
      }
      if (waitDeadline == 0) {
        waitDeadline = System.nanoTime() + timeoutNanos;
      }
      awaitSegment(b, seg, waitDeadline, timeoutNanos);
      now = ticker.read();
    }
    return out;
  }

  /**
   * Loads the tag's first segment if this server holds none; a tag already loaded is left as
   * it is, so no segment is consumed.
   */
  public void initCache(String bizTag, long timeoutNanos) {
    long waitDeadline = System.nanoTime() + timeoutNanos;
    while (true) {
      TagBuffer b = buffer(bizTag, ticker.read());
      if (b.isLoaded()) {
        return;
      }
      awaitSegment(b, Segment.EMPTY, waitDeadline, timeoutNanos);
    }
  }

  /** UpdateStep's effect on a cached tag: the very next load uses {@code newStep}. */
  public void onStepUpdated(String bizTag, int newStep) {
    Lock lock = locks.get(bizTag);
    lock.lock();
    try {
      TagBuffer b = buffers.get(bizTag);
      if (b != null) {
        b.resetStep(newStep);
      }
    } finally {
      lock.unlock();
    }
  }

  /** What this server holds for {@code bizTag}; empty when it holds nothing. */
  public Optional<TagSnapshot> snapshot(String bizTag) {
    Lock lock = locks.get(bizTag);
    lock.lock();
    try {
      TagBuffer b = buffers.get(bizTag);
      if (b == null || !b.isLoaded()) {
        return Optional.empty();
      }
      Segment n = b.next;
      return Optional.of(new TagSnapshot(view(b.current), n == null ? null : view(n),
          b.effectiveStep(ticker.read(), policy), b.lastAccessNanos()));
    } finally {
      lock.unlock();
    }
  }

  /** The buffer of {@code bizTag} if this server holds one. */
  public Optional<TagBuffer> cached(String bizTag) {
    return Optional.ofNullable(buffers.get(bizTag));
  }

  public int cachedCount() {
    return buffers.size();
  }

  /**
   * Drops {@code buffer} if the map still holds that very buffer, and closes it so requests that
   * raced onto it retry on a fresh one. Its segments are simply unused: gaps, never repeats.
   */
  public boolean evict(TagBuffer buffer) {
    Lock lock = locks.get(buffer.bizTag);
    lock.lock();
    try {
      if (buffers.remove(buffer.bizTag, buffer)) {
        buffer.closed = true;
        return true;
      }
      return false;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() {
    closed = true;
    loader.shutdownNow();
    List<CompletableFuture<Void>> pending = new ArrayList<>();
    for (TagBuffer b : buffers.values()) {
      Lock lock = locks.get(b.bizTag);
      lock.lock();
      try {
        if (b.pending != null) {
          pending.add(b.pending);
        }
      } finally {
        lock.unlock();
      }
    }
    pending.forEach(f -> f.completeExceptionally(new AllocatorClosedException()));
  }

  private TagBuffer buffer(String bizTag, long now) {
    TagBuffer b = buffers.get(bizTag);
    if (b == null || b.closed) {
      b = createBuffer(bizTag, now);
    }
    b.touch(now);
    return b;
  }

  private TagBuffer createBuffer(String bizTag, long now) {
    if (closed) {
      throw new AllocatorClosedException();
    }
    Lock lock = locks.get(bizTag);
    lock.lock();
    try {
      TagBuffer b = buffers.get(bizTag);
      if (b == null) {
        b = new TagBuffer(bizTag, now);
        buffers.put(bizTag, b);
        onCached.accept(b);
      }
      return b;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Called when {@code seen} (the segment the caller found) is exhausted: switches to the next
   * segment, or starts a load if none is pending, or waits for the pending one. Returns when the
   * caller should try again.
   */
  private void awaitSegment(TagBuffer b, Segment seen, long waitDeadline, long timeoutNanos) {
    CompletableFuture<Void> wait;
    Lock lock = locks.get(b.bizTag);
    lock.lock();
    try {
      if (b.closed || b.current != seen) {
        return;
      }
      if (b.next != null) {
        b.current = b.next;
        b.next = null;
        return;
      }
      if (closed) {
        throw new AllocatorClosedException();
      }
      wait = b.pending;
      if (wait == null) {
        long now = ticker.read();
        if (b.lastFailure != null && now < b.retryAtNanos) {
          throw b.failFast(now);
        }
        wait = startLoad(b, now);
      }
    } finally {
      lock.unlock();
    }
    long remaining = waitDeadline - System.nanoTime();
    try {
      if (remaining <= 0) {
        throw new TimeoutException();
      }
      wait.get(remaining, TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new SegmentWaitTimeoutException(b.bizTag, timeoutNanos);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw new IllegalStateException("segment load failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AllocatorClosedException();
    }
  }

  private void maybePreload(TagBuffer b, Segment seg, long now) {
    // Checked before claiming so that, while a failed preload backs off, callers neither take
    // the lock nor use up the claim.
    if (now < b.retryAtNanos || !seg.claimPreload()) {
      return;
    }
    Lock lock = locks.get(b.bizTag);
    lock.lock();
    try {
      // A caller that was descheduled past the switch holds an old segment: the current one
      // claims its own preload at its own 10%, which keeps the dynamic step's timing true.
      if (closed || b.closed || b.current != seg || b.next != null || b.pending != null) {
        return;
      }
      if (b.lastFailure != null && now < b.retryAtNanos) {
        seg.rearmPreload();
        return;
      }
      startLoad(b, now);
    } finally {
      lock.unlock();
    }
  }

  /** Starts the tag's one load; the caller holds the stripe lock. */
  private CompletableFuture<Void> startLoad(TagBuffer b, long now) {
    int step = b.stepForNextLoad(now, policy);
    int epoch = b.stepEpoch;
    CompletableFuture<Void> done = new CompletableFuture<>();
    b.pending = done;
    try {
      loader.execute(() -> load(b, step, epoch, now, done));
    } catch (RejectedExecutionException e) {
      b.pending = null;
      RuntimeException failure = closed ? new AllocatorClosedException()
          : new StoreUnavailableException("segment loader is saturated (" + loader.getQueue().size()
              + " loads queued, " + loader.getActiveCount() + " running); database too slow", e);
      done.completeExceptionally(failure);
    }
    return done;
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

  private void load(TagBuffer b, int step, int epoch, long startedNanos, CompletableFuture<Void> done) {
    SegmentRange range = null;
    RuntimeException failure = null;
    try {
      range = takeSegment(b.bizTag, step);
    } catch (RuntimeException e) {
      failure = e;
    } catch (Error e) {
      failure = new IllegalStateException("segment load failed", e);
      throw e;
    } finally {
      try {
        finishLoad(b, range, failure, epoch, startedNanos);
      } finally {
        // Waiters wake up whatever happened above, so none sleeps until its deadline in vain.
        if (failure == null) {
          done.complete(null);
        } else {
          done.completeExceptionally(failure);
        }
      }
    }
  }

  private void finishLoad(TagBuffer b, SegmentRange range, RuntimeException failure, int epoch,
      long startedNanos) {
    Lock lock = locks.get(b.bizTag);
    lock.lock();
    try {
      b.pending = null;
      if (b.closed) {
        // Evicted while loading: the range stays unused (a gap). Installed, it could still hand
        // IDs to a request holding this buffer after the tag's fresh buffer issued lower ones.
        return;
      }
      if (range != null) {
        b.onLoaded(range, startedNanos, epoch);
        Segment loaded = Segment.of(range);
        if (b.current.isExhausted()) {
          b.current = loaded;
        } else {
          b.next = loaded;
        }
        return;
      }
      if (failure instanceof TagNotFoundException && !b.isLoaded()) {
        // Never loaded and not in the database: hold no memory for it.
        if (buffers.remove(b.bizTag, b)) {
          b.closed = true;
        }
        return;
      }
      b.onFailed(failure, ticker.read(), config.minBackoff().toNanos(), config.maxBackoff().toNanos());
      if (b.isLoaded() && b.next == null && !b.current.isExhausted()) {
        // A failed preload is retried by the first request after the back-off, so the tag is
        // not left to stall on a synchronous load when its current segment runs out.
        b.current.rearmPreload();
      }
      if (failure instanceof StoreUnavailableException) {
        log.warn("loading a segment of {} failed ({} in a row): {}", b.bizTag, b.failures,
            failure.getMessage());
      }
    } finally {
      lock.unlock();
    }
  }

  private static TagSnapshot.SegmentView view(Segment s) {
    return new TagSnapshot.SegmentView(s.start, s.end, s.cursor());
  }
}
