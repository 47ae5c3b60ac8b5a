package io.leaf.server.testing;

import io.leaf.server.store.IdOverflowException;
import io.leaf.server.store.SegmentRange;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.TagAlreadyExistsException;
import io.leaf.server.store.TagNotFoundException;
import io.leaf.server.store.TagPage;
import io.leaf.server.store.TagRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** An in-memory {@link SegmentStore} with the same rules as the real one, for fast engine tests. */
public final class MemoryStore implements SegmentStore {

  private final TreeMap<String, TagRecord> rows = new TreeMap<>();

  @Override
  public synchronized TagRecord createTag(String bizTag, long maxId, int step, String description) {
    if (rows.containsKey(bizTag)) {
      throw new TagAlreadyExistsException(bizTag);
    }
    TagRecord r = new TagRecord(bizTag, maxId, step, description, 0);
    rows.put(bizTag, r);
    return r;
  }

  @Override
  public synchronized Optional<TagRecord> getTag(String bizTag) {
    return Optional.ofNullable(rows.get(bizTag));
  }

  @Override
  public synchronized TagRecord updateStep(String bizTag, int step) {
    TagRecord r = rows.get(bizTag);
    if (r == null) {
      throw new TagNotFoundException(bizTag);
    }
    TagRecord u = new TagRecord(bizTag, r.maxId(), step, r.description(), r.updateTime());
    rows.put(bizTag, u);
    return u;
  }

  @Override
  public synchronized TagPage listTags(String afterBizTag, int limit) {
    Map<String, TagRecord> tail = afterBizTag == null ? rows : rows.tailMap(afterBizTag, false);
    List<TagRecord> out = new ArrayList<>();
    for (TagRecord r : tail.values()) {
      if (out.size() == limit) {
        return new TagPage(out, true);
      }
      out.add(r);
    }
    return new TagPage(out, false);
  }

  @Override
  public synchronized SegmentRange nextSegment(String bizTag, int step) {
    TagRecord r = rows.get(bizTag);
    if (r == null) {
      throw new TagNotFoundException(bizTag);
    }
    int used = step == TABLE_STEP ? r.step() : step;
    if (r.maxId() > Long.MAX_VALUE - used) {
      throw new IdOverflowException(bizTag, r.maxId(), used);
    }
    long max = r.maxId() + used;
    rows.put(bizTag, new TagRecord(bizTag, max, r.step(), r.description(), r.updateTime()));
    return new SegmentRange(max - used, max, used, r.step());
  }

  @Override
  public void ping() {}
}
