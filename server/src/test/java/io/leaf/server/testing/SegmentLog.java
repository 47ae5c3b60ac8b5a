package io.leaf.server.testing;

import io.leaf.server.store.SegmentRange;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.TagPage;
import io.leaf.server.store.TagRecord;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Every segment the stores it wraps handed out, by row: {@link #wrap} a server's store, then ask
 * {@link #handedOut} whether a number came from a given row. One log may wrap several servers'
 * stores on one database. Thread-safe.
 */
public final class SegmentLog {

  private final Map<String, List<SegmentRange>> byRow = new ConcurrentHashMap<>();

  /** {@code store}, recording each segment it takes. */
  public SegmentStore wrap(SegmentStore store) {
    return new SegmentStore() {
      @Override
      public TagRecord createTag(String bizTag, long maxId, int step, String description) {
        return store.createTag(bizTag, maxId, step, description);
      }

      @Override
      public Optional<TagRecord> getTag(String bizTag) {
        return store.getTag(bizTag);
      }

      @Override
      public TagRecord updateStep(String bizTag, int step) {
        return store.updateStep(bizTag, step);
      }

      @Override
      public TagPage listTags(String afterBizTag, int limit) {
        return store.listTags(afterBizTag, limit);
      }

      @Override
      public SegmentRange nextSegment(String bizTag, int step) {
        SegmentRange r = store.nextSegment(bizTag, step);
        byRow.computeIfAbsent(bizTag, k -> new CopyOnWriteArrayList<>()).add(r);
        return r;
      }

      @Override
      public boolean mayHold(String bizTag) {
        return store.mayHold(bizTag);
      }

      @Override
      public void ping() {
        store.ping();
      }
    };
  }

  /** Whether {@code id} lies in a segment that row {@code row} handed out. */
  public boolean handedOut(String row, long id) {
    return byRow.getOrDefault(row, List.of()).stream()
        .anyMatch(r -> id >= r.start() && id < r.end());
  }

  /** How many segments {@code row} handed out. */
  public int segments(String row) {
    return byRow.getOrDefault(row, List.of()).size();
  }
}
