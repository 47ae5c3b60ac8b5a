package io.leaf.server.engine;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import com.google.common.util.concurrent.Striped;
import io.leaf.server.store.SegmentRange;
import io.leaf.server.store.StoreUnavailableException;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps every tag's IDs above the ones this server already took, even when the database goes back
 * in time (a restored backup, a lagging replica promoted after its primary confirmed commits it
 * never received).
 *
 * <p>A range the store hands back that starts below the highest ID this server took for the tag is
 * logged as an ERROR naming the tag and both values, counted ({@link EngineEvents#segmentRewound}),
 * and only the part above is used; a range wholly below is followed by one more write that moves
 * {@code max_id} past it, so the database itself stops handing out the overlap, to this server and
 * to the others.
 *
 * <p>Why a read before the write decides, not the highest value at the time of the reply: a write
 * that started after another's range was recorded can only get a higher range from a database that
 * keeps its order; two writes in flight at once (a preload and a ReserveIds) may come back in
 * either order without anything having gone back.
 *
 * <p>Cost: one bounded cache entry per tag (the least recently written tags are forgotten first,
 * beyond {@link #CAPACITY}); two lookups per store write. Thread-safe; never called under a stripe
 * lock (it logs).
 */
final class RewindGuard {

  /** Tags whose highest ID is remembered. */
  static final int CAPACITY = 100_000;

  /** Writes that move {@code max_id} past a range wholly below before the load gives up. */
  static final int MAX_JUMPS = 4;

  private static final Logger log = LoggerFactory.getLogger(RewindGuard.class);

  /** Per tag: one past the highest ID of any range this server took. */
  private final Cache<String, Long> ceilings =
      CacheBuilder.newBuilder().maximumSize(CAPACITY).build();

  private final Supplier<EngineEvents> events;

  /** Per tag (striped): writes share it; a rewound range's cut takes it alone. */
  private final Striped<ReadWriteLock> locks = Striped.readWriteLock(64);

  RewindGuard(Supplier<EngineEvents> events) {
    this.events = events;
  }

  /** One past the highest ID this server took for {@code bizTag}; {@code Long.MIN_VALUE}: none. */
  long ceiling(String bizTag) {
    Long c = ceilings.getIfPresent(bizTag);
    return c == null ? Long.MIN_VALUE : c;
  }

  /**
   * Runs {@code write(step)} (the store's {@code nextSegment}) and returns its range, or, when the
   * database went back in time, IDs of {@code write}'s ranges above what this server took: the part
   * of the range above, at most as many IDs as it held ({@code exact}: exactly as many), from more
   * writes that move {@code max_id} past what this server took while that is not enough.
   *
   * @param exact whether fewer IDs than the first range held will not do (ReserveIds)
   * @throws StoreUnavailableException the database is still below after {@link #MAX_JUMPS} writes
   */
  SegmentRange take(String bizTag, int step, boolean exact, IntFunction<SegmentRange> write) {
    ReadWriteLock lock = locks.get(bizTag);
    long before;
    SegmentRange range;
    // Writes of a tag run side by side under the read lock, each recording its range before it
    // lets go; a rewound range waits for the write lock, so the ceiling it cuts at includes every
    // range taken by a write that was in flight meanwhile (read before its own write, the
    // ceiling could miss one, and the cut could then overlap it).
    lock.readLock().lock();
    try {
      before = ceiling(bizTag);
      range = write.apply(step);
      if (range.start() >= before) {
        record(bizTag, range.end());
        return range;
      }
    } finally {
      lock.readLock().unlock();
    }
    lock.writeLock().lock();
    try {
      return rewound(bizTag, Math.max(before, ceiling(bizTag)), range, exact, write);
    } finally {
      lock.writeLock().unlock();
    }
  }

  /**
   * Under the tag's write lock: the part of {@code range} (or of more writes) above {@code before}.
   */
  private SegmentRange rewound(
      String bizTag,
      long before,
      SegmentRange range,
      boolean exact,
      IntFunction<SegmentRange> write) {
    int want = range.step();
    log.error(
        "biz_tag {}: the database handed out [{}, {}) but this server already took IDs"
            + " up to {} (issued or buffered); the database went back in time (a restored backup,"
            + " a promoted replica that lacked commits). IDs below {} are skipped (a gap), never"
            + " issued again",
        bizTag,
        range.start(),
        range.end(),
        before - 1,
        before);
    events.get().segmentRewound();
    long need = exact ? want : 1;
    for (int jump = 0; usable(range, before) < need; jump++) {
      if (jump == MAX_JUMPS) {
        throw new StoreUnavailableException(
            "database unavailable: biz_tag "
                + bizTag
                + " is still below the IDs this server issued (max_id "
                + range.end()
                + ", issued up"
                + " to "
                + (before - 1)
                + ") after "
                + MAX_JUMPS
                + " writes to move past them",
            null);
      }
      // Past the IDs issued here (if max_id is still below them), plus the IDs wanted.
      long needed = Math.max(before, range.end()) - range.end() + want;
      range = write.apply((int) Math.min(needed, Integer.MAX_VALUE));
    }
    long start = Math.max(before, range.start());
    int taken = (int) Math.min(usable(range, before), want);
    record(bizTag, start + taken);
    return new SegmentRange(start, start + taken, taken, range.tableStep());
  }

  /** How many IDs of {@code range} lie at or above {@code ceiling}. */
  private static long usable(SegmentRange range, long ceiling) {
    return range.end() - Math.max(ceiling, range.start());
  }

  private void record(String bizTag, long end) {
    ceilings.asMap().merge(bizTag, end, Math::max);
  }
}
