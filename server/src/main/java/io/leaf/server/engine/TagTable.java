package io.leaf.server.engine;

import com.google.common.util.concurrent.Striped;
import io.leaf.server.store.TagNotFoundException;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The tags this server holds: one {@link TagBuffer} each, created on first use and dropped on
 * eviction or when its first load fails, and the striped locks that guard every change of a tag's
 * state. A name the table cannot hold gets no buffer at all.
 *
 * <p>Cost: a lookup is one {@link ConcurrentHashMap#get}. Thread-safety: safe for any number of
 * threads; a buffer is created and removed only under its tag's stripe lock, and a removed buffer
 * is closed, so a request that raced onto it retries on a fresh one.
 */
final class TagTable {

  /** Package-private so tests can find two tags that share a stripe. */
  static final int STRIPES = 256;

  private final ConcurrentHashMap<String, TagBuffer> buffers = new ConcurrentHashMap<>();
  private final Striped<Lock> locks = Striped.lock(STRIPES);
  private final MissingTags missing;

  /** False for a name the table cannot hold ({@code SegmentStore#mayHold}). */
  private final Predicate<String> mayExist;

  /** Buffers handed to the idle sweeper and not removed since: the tags held. */
  private final AtomicInteger held = new AtomicInteger();

  private final ServedTags served = new ServedTags();

  private final Consumer<TagBuffer> onCached;
  private final EngineEvents events;
  private final RewindGuard rewinds;
  private final StepLimits stepLimits = new StepLimits();

  /** How many times {@link #clearBackoffs} ran: a load compares it across its write. */
  private final AtomicInteger answered = new AtomicInteger();

  TagTable(MissingTags missing, Predicate<String> mayExist, EngineListeners listeners) {
    this.missing = missing;
    this.mayExist = mayExist;
    this.onCached = listeners.onCached();
    this.events = listeners.events();
    this.rewinds = new RewindGuard(() -> events);
  }

  /** The buffer of {@code bizTag}; null when none. */
  TagBuffer get(String bizTag) {
    return buffers.get(bizTag);
  }

  Lock lock(String bizTag) {
    return locks.get(bizTag);
  }

  MissingTags missing() {
    return missing;
  }

  /** Every range taken from the store for a tag passes here: IDs never go back on this server. */
  RewindGuard rewinds() {
    return rewinds;
  }

  /** The names of the tags a segment was loaded for here. */
  ServedTags served() {
    return served;
  }

  /** The dynamic-step limits of the tags given one. */
  StepLimits stepLimits() {
    return stepLimits;
  }

  EngineEvents events() {
    return events;
  }

  /**
   * The open buffer of {@code bizTag}, created if there is none.
   *
   * @throws TagNotFoundException the table cannot hold such a name, or the database lacked the tag
   *     within the missing-tag TTL
   * @throws RuntimeException the tag's first load failed and its back-off has not passed
   */
  TagBuffer getOrCreate(String bizTag, long nowNanos) {
    TagBuffer b = buffers.get(bizTag);
    if (b != null && !b.isClosed()) {
      return b;
    }
    if (!mayExist.test(bizTag)) {
      // Outside the column's character set or longer than it: no row can have this name.
      events.missingTagHit();
      throw new TagNotFoundException(bizTag);
    }
    RuntimeException remembered = missing.answer(bizTag, nowNanos);
    if (remembered != null) {
      if (remembered instanceof TagNotFoundException) {
        events.missingTagHit();
      }
      throw remembered;
    }
    Lock lock = locks.get(bizTag);
    lock.lock();
    try {
      b = buffers.get(bizTag);
      if (b == null) {
        b = new TagBuffer(bizTag, nowNanos);
        buffers.put(bizTag, b);
      }
      return b;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Hands {@code b} to the listener (the idle sweeper) once, when a load brought it a segment.
   * Buffers whose first load failed (the tag is not in the database, or the load was refused or
   * failed) are dropped before that, so a flood of unknown names never reaches the sweeper. The
   * caller holds the tag's stripe lock.
   */
  void keptLocked(TagBuffer b) {
    if (b.announce()) {
      held.incrementAndGet();
      onCached.accept(b);
    }
  }

  /** Drops and closes {@code b} if the table still holds that very buffer; takes the lock. */
  boolean remove(TagBuffer b) {
    Lock lock = locks.get(b.bizTag());
    lock.lock();
    try {
      return removeLocked(b);
    } finally {
      lock.unlock();
    }
  }

  /** {@link #remove} for a caller that holds the tag's stripe lock. */
  boolean removeLocked(TagBuffer b) {
    if (buffers.remove(b.bizTag(), b)) {
      b.close();
      if (b.announced()) {
        held.decrementAndGet();
      }
      return true;
    }
    return false;
  }

  /** Buffers whose loads brought a segment: not the first loads in flight, never a failed one. */
  int held() {
    return held.get();
  }

  Collection<TagBuffer> all() {
    return buffers.values();
  }

  /**
   * Called when {@code seen} (the segment the caller found) is exhausted: true when the caller
   * should try again (another thread switched, the buffer was dropped, or this call switched to the
   * loaded next segment), false when the tag must wait for a load.
   */
  boolean switchSegment(TagBuffer b, Segment seen, long nowNanos) {
    Lock lock = locks.get(b.bizTag());
    lock.lock();
    try {
      return b.onSegmentDrained(seen, nowNanos);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Records that IDs up to {@code end} were reserved above this tag's segments: the next segment
   * and the rest of the current one, if they lie below {@code end}, are dropped (a gap), and a load
   * in flight that brings a lower segment drops it too. IDs this server issues afterwards are all
   * above the reservation.
   */
  void raiseFloor(String bizTag, long end) {
    Lock lock = locks.get(bizTag);
    lock.lock();
    try {
      TagBuffer b = buffers.get(bizTag);
      if (b != null && !b.isClosed()) {
        b.raiseFloor(end);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * The failure to answer at once while {@code bizTag} backs off after failed loads (the database
   * is known to be down), or null: a write for it now would only wait out a connection timeout.
   */
  RuntimeException backingOff(String bizTag, long nowNanos) {
    TagBuffer b = buffers.get(bizTag);
    if (b == null || !b.backingOff(nowNanos)) {
      return null;
    }
    Lock lock = locks.get(bizTag);
    lock.lock();
    try {
      return b.backingOff(nowNanos) ? b.failFast(nowNanos) : null;
    } finally {
      lock.unlock();
    }
  }

  /** Segments of {@code bizTag} queued behind the current one plus its loads in flight. */
  int segmentsAhead(String bizTag) {
    return read(bizTag, b -> b.queued() + b.loadsInFlight(), 0);
  }

  /** Loads of {@code bizTag} in flight. */
  int loadsInFlight(String bizTag) {
    return read(bizTag, TagBuffer::loadsInFlight, 0);
  }

  /** UpdateStep's effect on a held tag: the very next load uses {@code newStep}. */
  void resetStep(String bizTag, int newStep) {
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

  /** What the table holds for {@code bizTag}; empty while it holds no segment of it. */
  Optional<TagSnapshot> snapshot(String bizTag, long nowNanos, StepPolicy policy) {
    return read(
        bizTag,
        b ->
            b.isLoaded()
                ? Optional.of(b.snapshot(nowNanos, policy))
                : Optional.<TagSnapshot>empty(),
        Optional.empty());
  }

  /** The names of the tags held (a first load in flight or failed is none), sorted, at most max. */
  List<String> heldNames(int max) {
    return heldNames(max, tag -> true);
  }

  /** The held tags {@code visible} accepts, sorted, at most {@code max}. */
  List<String> heldNames(int max, Predicate<String> visible) {
    return all().stream()
        .filter(TagBuffer::isLoaded)
        .map(TagBuffer::bizTag)
        .filter(visible)
        .sorted()
        .limit(max)
        .toList();
  }

  /** How many held tags {@code visible} accepts: one pass over the map. */
  int held(Predicate<String> visible) {
    return (int)
        all().stream().filter(TagBuffer::isLoaded).map(TagBuffer::bizTag).filter(visible).count();
  }

  /**
   * {@code query} of the buffer of {@code bizTag} under its stripe lock; {@code none}: no buffer.
   */
  private <T> T read(String bizTag, Function<TagBuffer, T> query, T none) {
    Lock lock = locks.get(bizTag);
    lock.lock();
    try {
      TagBuffer b = buffers.get(bizTag);
      return b == null ? none : query.apply(b);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Changes each time {@link #clearBackoffs} runs (the database answered again): a load that saw
   * another value when it started failed because of the outage that has just ended.
   */
  int answeredEpoch() {
    return answered.get();
  }

  /** Ends every tag's back-off after failed loads, each under its stripe lock. */
  void clearBackoffs() {
    answered.incrementAndGet();
    missing.clearFailures();
    for (TagBuffer b : all()) {
      Lock lock = locks.get(b.bizTag());
      lock.lock();
      try {
        b.clearBackoff();
      } finally {
        lock.unlock();
      }
    }
  }
}
