package io.leaf.server.store;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * The {@code leaf_alloc} rules held in memory, for tests and benchmarks of the engine: the same
 * errors and segments as {@link JooqSegmentStore}, nothing durable.
 *
 * <p>Thread-safe. Each row's monitor stands in for the table's row lock, so segment loads of one
 * tag are serialized and loads of different tags are not; {@link #listTags} is weakly consistent
 * with concurrent creation.
 */
public final class MemorySegmentStore implements SegmentStore {

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

  private final InstantSource clock;

  /** Told of every take under the row's monitor, as a guard runs in the take's transaction. */
  private final Consumer<TakeGuard.Take> onTake;

  public MemorySegmentStore() {
    this(InstantSource.system());
  }

  /**
   * @param clock stamps {@code update_time} as the database's transactions do
   */
  public MemorySegmentStore(InstantSource clock) {
    this(clock, take -> {});
  }

  /**
   * @param onTake told of every take before it returns, as {@link JooqSegmentStore}'s guard is (the
   *     ledger's records in memory)
   */
  public MemorySegmentStore(InstantSource clock, Consumer<TakeGuard.Take> onTake) {
    this.clock = clock;
    this.onTake = onTake;
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
    return take(bizTag, step, false);
  }

  @Override
  public SegmentRange reserveRange(String bizTag, int count) {
    return take(bizTag, count, true);
  }

  private SegmentRange take(String bizTag, int step, boolean reservation) {
    Row r = row(bizTag);
    synchronized (r) {
      int used = step == TABLE_STEP ? r.step : step;
      if (r.maxId > Long.MAX_VALUE - used) {
        throw new IdOverflowException(bizTag, r.maxId, used);
      }
      r.maxId += used;
      r.updateTime = clock.millis();
      SegmentRange range = new SegmentRange(r.maxId - used, r.maxId, used, r.step);
      onTake.accept(new TakeGuard.Take(bizTag, range, reservation, r.updateTime));
      return range;
    }
  }

  /**
   * The hand-back's write, as {@link JooqSegmentStore#setBack}: {@code max_id} goes back to {@code
   * first} only if it still is {@code end}, then {@code after} runs with the time, under the row's
   * monitor; returns whether it went back.
   */
  public boolean setBack(String bizTag, long first, long end, LongConsumer after) {
    Row r = rows.get(bizTag);
    if (r == null || first >= end) {
      return false;
    }
    synchronized (r) {
      if (r.maxId != end) {
        return false;
      }
      r.maxId = first;
      r.updateTime = clock.millis();
      after.accept(r.updateTime);
      return true;
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
