package io.leaf.server.store;

import io.leaf.server.ledger.IssuedRange;
import io.leaf.server.ledger.JooqLedger;
import io.leaf.server.ledger.Ledger;
import io.leaf.server.ledger.LedgerOffException;
import io.leaf.server.ledger.LedgerSettings;
import io.leaf.server.ledger.RangeKind;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The {@code leaf_alloc} rules held in memory, for tests and benchmarks of the engine: the same
 * errors and segments as {@link JooqSegmentStore}, nothing durable.
 *
 * <p>Thread-safe. Each row's monitor stands in for the table's row lock, so segment loads of one
 * tag are serialized and loads of different tags are not; {@link #listTags} is weakly consistent
 * with concurrent creation.
 */
public final class MemorySegmentStore implements SegmentStore, Ledger {

  /** A row; every field is read and written under the row's monitor. */
  private static final class Row {
    long maxId;
    int step;
    final String description;
    long updateTime;

    Row(long maxId, int step, String description, long updateTime) {
      this.maxId = maxId;
      this.step = step;
      this.description = description;
      this.updateTime = updateTime;
    }
  }

  private final ConcurrentNavigableMap<String, Row> rows = new ConcurrentSkipListMap<>();

  /** One ledger record of a tag. */
  private record Entry(String bizTag, IssuedRange range) {}

  private final InstantSource clock;
  private final LedgerSettings ledger;

  /** The ledger's records; guarded by itself. */
  private final List<Entry> records = new ArrayList<>();

  public MemorySegmentStore() {
    this(InstantSource.system());
  }

  /**
   * @param clock stamps {@code update_time} as the database's transactions do
   */
  public MemorySegmentStore(InstantSource clock) {
    this(clock, LedgerSettings.OFF);
  }

  /**
   * @param ledger whether takes are recorded (in memory), as {@link JooqSegmentStore} does
   */
  public MemorySegmentStore(InstantSource clock, LedgerSettings ledger) {
    this.clock = clock;
    this.ledger = ledger;
  }

  @Override
  public TagRecord createTag(String bizTag, long maxId, int step, String description) {
    long now = clock.millis();
    if (rows.putIfAbsent(bizTag, new Row(maxId, step, description, now)) != null) {
      throw new TagAlreadyExistsException(bizTag);
    }
    return new TagRecord(bizTag, maxId, step, description, now);
  }

  @Override
  public Optional<TagRecord> getTag(String bizTag) {
    Row r = rows.get(bizTag);
    return r == null ? Optional.empty() : Optional.of(record(bizTag, r));
  }

  @Override
  public TagRecord updateStep(String bizTag, int step) {
    Row r = row(bizTag);
    synchronized (r) {
      r.step = step;
      r.updateTime = clock.millis();
    }
    return record(bizTag, r);
  }

  @Override
  public TagPage listTags(String afterBizTag, int limit) {
    Map<String, Row> tail = afterBizTag == null ? rows : rows.tailMap(afterBizTag, false);
    List<TagRecord> out = new ArrayList<>();
    for (Map.Entry<String, Row> e : tail.entrySet()) {
      if (out.size() == limit) {
        return new TagPage(out, true);
      }
      out.add(record(e.getKey(), e.getValue()));
    }
    return new TagPage(out, false);
  }

  @Override
  public SegmentRange nextSegment(String bizTag, int step) {
    return take(bizTag, step, RangeKind.SEGMENT);
  }

  @Override
  public SegmentRange reserveRange(String bizTag, int count) {
    return take(bizTag, count, RangeKind.RESERVE);
  }

  private SegmentRange take(String bizTag, int step, RangeKind kind) {
    Row r = row(bizTag);
    synchronized (r) {
      int used = step == TABLE_STEP ? r.step : step;
      if (r.maxId > Long.MAX_VALUE - used) {
        throw new IdOverflowException(bizTag, r.maxId, used);
      }
      r.maxId += used;
      r.updateTime = clock.millis();
      SegmentRange range = new SegmentRange(r.maxId - used, r.maxId, used, r.step);
      record(bizTag, range.start(), range.end(), kind, r.updateTime);
      return range;
    }
  }

  private void record(String bizTag, long start, long end, RangeKind kind, long now) {
    if (ledger.on()) {
      synchronized (records) {
        records.add(new Entry(bizTag, new IssuedRange(start, end, ledger.server(), now, kind)));
      }
    }
  }

  @Override
  public Optional<IssuedRange> whoIssued(String bizTag, long id) {
    if (!ledger.on()) {
      throw new LedgerOffException();
    }
    long maxId = getTag(bizTag).map(TagRecord::maxId).orElse(JooqLedger.NO_MAX_ID);
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

  /** {@inheritDoc} The ledger's records change as {@link JooqLedger#recordReturned} says. */
  @Override
  public boolean handBack(String bizTag, long firstUnissued, long segmentEnd) {
    Row r = rows.get(bizTag);
    if (r == null || firstUnissued >= segmentEnd) {
      return false;
    }
    synchronized (r) {
      if (r.maxId != segmentEnd) {
        return false;
      }
      r.maxId = firstUnissued;
      r.updateTime = clock.millis();
      if (ledger.on()) {
        synchronized (records) {
          // As JooqLedger.recordReturned: every hand-back at or above firstUnissued merges in.
          long end = segmentEnd;
          for (java.util.Iterator<Entry> it = records.iterator(); it.hasNext(); ) {
            Entry e = it.next();
            if (!e.bizTag().equals(bizTag) || e.range().start() < firstUnissued) {
              continue;
            }
            if (e.range().kind() == RangeKind.RETURNED) {
              end = Math.max(end, e.range().end());
              it.remove();
            } else if (e.range().kind() == RangeKind.SEGMENT
                && e.range().end() <= segmentEnd
                && e.range().server().equals(ledger.server())) {
              it.remove();
            }
          }
          records.add(
              new Entry(
                  bizTag,
                  new IssuedRange(
                      firstUnissued, end, ledger.server(), r.updateTime, RangeKind.RETURNED)));
        }
      }
      return true;
    }
  }

  /** Deletes at most {@code limit} ledger records older than {@code cutoffMillis}. */
  public int deleteLedgerBefore(long cutoffMillis, int limit) {
    synchronized (records) {
      int deleted = 0;
      for (java.util.Iterator<Entry> it = records.iterator(); it.hasNext() && deleted < limit; ) {
        if (it.next().range().timeMs() < cutoffMillis) {
          it.remove();
          deleted++;
        }
      }
      return deleted;
    }
  }

  @Override
  public void ping() {}

  private Row row(String bizTag) {
    Row r = rows.get(bizTag);
    if (r == null) {
      throw new TagNotFoundException(bizTag);
    }
    return r;
  }

  private static TagRecord record(String bizTag, Row r) {
    synchronized (r) {
      return new TagRecord(bizTag, r.maxId, r.step, r.description, r.updateTime);
    }
  }
}
