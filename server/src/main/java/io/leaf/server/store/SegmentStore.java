package io.leaf.server.store;

import java.util.Optional;

/**
 * Persistent allocation state of every tag: the {@code leaf_alloc} table.
 *
 * <p>Implementations are thread-safe. Failures surface as the unchecked exceptions of this package:
 * {@link TagNotFoundException}, {@link TagAlreadyExistsException}, {@link IdOverflowException},
 * {@link StoreUnavailableException} (an outage: a later call may succeed), {@link
 * StoreRejectedException} (the database refuses until someone changes it).
 */
public interface SegmentStore {

  /** Passed to {@link #nextSegment} to add the row's own {@code step} column. */
  int TABLE_STEP = 0;

  /** Inserts a tag; {@link TagAlreadyExistsException} when {@code bizTag} is taken. */
  TagRecord createTag(String bizTag, long maxId, int step, String description);

  Optional<TagRecord> getTag(String bizTag);

  /** Sets the row's step; {@link TagNotFoundException} when the tag does not exist. */
  TagRecord updateStep(String bizTag, int step);

  /**
   * Tags with {@code biz_tag} greater than {@code afterBizTag} (null: from the first), in order.
   */
  TagPage listTags(String afterBizTag, int limit);

  /**
   * Takes the next segment of {@code bizTag}: {@code max_id += step} in one atomic write that
   * committed before this returns; the segment is {@code [max_id - step, max_id)} with the {@code
   * max_id} that very write produced (never a value read afterwards, which another server may have
   * moved on).
   *
   * @param step the step to add, or {@link #TABLE_STEP} for the row's own step
   * @throws TagNotFoundException the tag does not exist
   * @throws IdOverflowException {@code max_id + step} would pass {@link Long#MAX_VALUE}
   * @throws InvalidTagStateException the row's own step is not positive
   * @throws StoreUnavailableException the database cannot be reached, failed, or kept losing write
   *     conflicts
   * @throws StoreRejectedException the database refuses the write (a privilege, read-only)
   */
  SegmentRange nextSegment(String bizTag, int step);

  /**
   * ReserveIds' dedicated write: {@code count} IDs as {@link #nextSegment} takes them, recorded (by
   * the ledger) as a reservation rather than a segment.
   */
  default SegmentRange reserveRange(String bizTag, int count) {
    return nextSegment(bizTag, count);
  }

  /**
   * False when no row of the table can be named {@code bizTag} (its {@code biz_tag} column's
   * character set or length rules the name out), so the tag cannot exist and no query is needed to
   * say so; true when it may exist, or the table is not known yet. Cheap: no I/O.
   */
  default boolean mayHold(String bizTag) {
    return true;
  }

  /** Returns normally when the database answers a trivial query. */
  void ping();
}
