package io.leaf.bench;

import io.leaf.server.store.IdOverflowException;
import io.leaf.server.store.SegmentRange;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.TagAlreadyExistsException;
import io.leaf.server.store.TagNotFoundException;
import io.leaf.server.store.TagPage;
import io.leaf.server.store.TagRecord;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link SegmentStore} held in memory whose segment load is one map lookup and one short
 * synchronized block, so a benchmark of the engine measures the engine and not a database.
 *
 * <p>Thread-safe. Each row is only {@code max_id} and {@code step}: the fewest bytes per tag, which
 * keeps the store out of the heap-per-tag figure.
 */
public final class InMemorySegmentStore implements SegmentStore {

  private static final class Row {
    long maxId;
    final int step;

    Row(long maxId, int step) {
      this.maxId = maxId;
      this.step = step;
    }
  }

  private final ConcurrentHashMap<String, Row> rows = new ConcurrentHashMap<>();

  @Override
  public TagRecord createTag(String bizTag, long maxId, int step, String description) {
    if (rows.putIfAbsent(bizTag, new Row(maxId, step)) != null) {
      throw new TagAlreadyExistsException(bizTag);
    }
    return new TagRecord(bizTag, maxId, step, description, 0);
  }

  @Override
  public Optional<TagRecord> getTag(String bizTag) {
    Row r = rows.get(bizTag);
    if (r == null) {
      return Optional.empty();
    }
    synchronized (r) {
      return Optional.of(new TagRecord(bizTag, r.maxId, r.step, "", 0));
    }
  }

  @Override
  public TagRecord updateStep(String bizTag, int step) {
    throw new UnsupportedOperationException("the benchmark store keeps each tag's step");
  }

  @Override
  public TagPage listTags(String afterBizTag, int limit) {
    return new TagPage(List.of(), false);
  }

  @Override
  public SegmentRange nextSegment(String bizTag, int step) {
    Row r = rows.get(bizTag);
    if (r == null) {
      throw new TagNotFoundException(bizTag);
    }
    int used = step == TABLE_STEP ? r.step : step;
    // The row's monitor is the row lock of the real table: one load of a tag at a time.
    synchronized (r) {
      if (r.maxId > Long.MAX_VALUE - used) {
        throw new IdOverflowException(bizTag, r.maxId, used);
      }
      r.maxId += used;
      return new SegmentRange(r.maxId - used, r.maxId, used, r.step);
    }
  }

  @Override
  public void ping() {}
}
