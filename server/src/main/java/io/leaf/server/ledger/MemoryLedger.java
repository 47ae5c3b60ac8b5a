package io.leaf.server.ledger;

import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.store.TagRecord;
import io.leaf.server.store.TakeGuard;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

/**
 * The ledger's rules in memory over a {@link MemorySegmentStore} of its own, for tests and
 * benchmarks: the same records and answers as {@link DatabaseLedger}, nothing durable. Thread-safe.
 */
public final class MemoryLedger implements Ledger {

  /** One record of a tag. */
  private record Entry(String bizTag, IssuedRange range) {}

  private final LedgerSettings settings;
  private final MemorySegmentStore store;

  /** The records; guarded by itself. */
  private final List<Entry> records = new ArrayList<>();

  /**
   * @param clock stamps {@code update_time} and the records, as the database's transactions do
   */
  public MemoryLedger(InstantSource clock, LedgerSettings settings) {
    this.settings = settings;
    this.store = new MemorySegmentStore(clock, this::recordTake);
  }

  /** The store whose takes this ledger records. */
  public MemorySegmentStore store() {
    return store;
  }

  private void recordTake(TakeGuard.Take take) {
    if (settings.on()) {
      RangeKind kind = take.reservation() ? RangeKind.RESERVE : RangeKind.SEGMENT;
      IssuedRange range =
          new IssuedRange(
              take.range().start(), take.range().end(), settings.server(), take.nowMillis(), kind);
      synchronized (records) {
        records.add(new Entry(take.bizTag(), range));
      }
    }
  }

  @Override
  public Optional<IssuedRange> whoIssued(String bizTag, long id) {
    if (!settings.on()) {
      throw new LedgerOffException();
    }
    long maxId = store.getTag(bizTag).map(TagRecord::maxId).orElse(JooqLedger.NO_MAX_ID);
    List<IssuedRange> mine = new ArrayList<>();
    synchronized (records) {
      for (Entry e : records) {
        if (e.bizTag().equals(bizTag)) {
          mine.add(e.range());
        }
      }
    }
    return JooqLedger.answer(mine, id, maxId);
  }

  /** {@inheritDoc} The records change as {@link JooqLedger#recordReturned} says. */
  @Override
  public boolean handBack(String bizTag, long firstUnissued, long segmentEnd) {
    return store.setBack(
        bizTag,
        firstUnissued,
        segmentEnd,
        now -> {
          if (settings.on()) {
            recordReturned(bizTag, firstUnissued, segmentEnd, now);
          }
        });
  }

  private void recordReturned(String bizTag, long first, long segmentEnd, long now) {
    synchronized (records) {
      // As JooqLedger.recordReturned: every hand-back at or above first merges in.
      long end = segmentEnd;
      for (Iterator<Entry> it = records.iterator(); it.hasNext(); ) {
        Entry e = it.next();
        if (!e.bizTag().equals(bizTag) || e.range().start() < first) {
          continue;
        }
        if (e.range().kind() == RangeKind.RETURNED) {
          end = Math.max(end, e.range().end());
          it.remove();
        } else if (e.range().kind() == RangeKind.SEGMENT
            && e.range().end() <= segmentEnd
            && e.range().server().equals(settings.server())) {
          it.remove();
        }
      }
      records.add(
          new Entry(
              bizTag, new IssuedRange(first, end, settings.server(), now, RangeKind.RETURNED)));
    }
  }

  /** Deletes at most {@code limit} records older than {@code cutoffMillis}. */
  public int deleteBefore(long cutoffMillis, int limit) {
    synchronized (records) {
      int deleted = 0;
      for (Iterator<Entry> it = records.iterator(); it.hasNext() && deleted < limit; ) {
        if (it.next().range().timeMs() < cutoffMillis) {
          it.remove();
          deleted++;
        }
      }
      return deleted;
    }
  }
}
