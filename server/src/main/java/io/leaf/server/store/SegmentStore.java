package io.leaf.server.store;

import java.util.Optional;

/**
 * Persistent allocation state of every tag: the {@code leaf_alloc} table.
 *
 * <p>Implementations are thread-safe. Failures surface as the unchecked exceptions of this
 * package: {@link TagNotFoundException}, {@link TagAlreadyExistsException},
 * {@link IdOverflowException}, {@link StoreUnavailableException}.
 */
public interface SegmentStore {

  /** Passed to {@link #nextSegment} to add the row's own {@code step} column. */
  int TABLE_STEP = 0;

  /** Inserts a tag; {@link TagAlreadyExistsException} when {@code bizTag} is taken. */
  TagRecord createTag(String bizTag, long maxId, int step, String description);

  Optional<TagRecord> getTag(String bizTag);

  /** Sets the row's step; {@link TagNotFoundException} when the tag does not exist. */
  TagRecord updateStep(String bizTag, int step);

  /** Tags with {@code biz_tag} greater than {@code afterBizTag} (null: from the first), in order. */
  TagPage listTags(String afterBizTag, int limit);

  /**
   * Takes the next segment of {@code bizTag} in one transaction: {@code max_id += step}, then
   * reads the row back; the segment is {@code [max_id - step, max_id)}.
   *
   * @param step the step to add, or {@link #TABLE_STEP} for the row's own step
   * @throws TagNotFoundException the tag does not exist
   * @throws IdOverflowException {@code max_id + step} would pass {@link Long#MAX_VALUE}
   * @throws StoreUnavailableException the database cannot be reached or failed
   */
  SegmentRange nextSegment(String bizTag, int step);

  /** Returns normally when the database answers a trivial query. */
  void ping();
}
