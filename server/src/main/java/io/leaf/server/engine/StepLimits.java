package io.leaf.server.engine;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;

/**
 * The largest dynamic step of the tags given one (a formatted tag's period rows, whose numbers a
 * fixed width bounds): a grown step above it is cut to it.
 *
 * <p>Tags without a limit grow to the engine's {@code --max-step}. The row's own step (first loads,
 * UpdateStep) is not cut: whoever sets a limit creates the row with a step within it. A tag with a
 * limit also loads one segment ahead at most ({@link SegmentLoader}): loads side by side may finish
 * out of order, and the lower segment is then left unused, which a width-bounded row cannot afford.
 *
 * <p>Bounded ({@value #CAPACITY} tags, least recently set go first: a forgotten limit is set again
 * by its owner's next call). Thread-safe; a lookup is one cache read.
 */
final class StepLimits {

  static final int CAPACITY = 100_000;

  private final Cache<String, Integer> limits =
      CacheBuilder.newBuilder().maximumSize(CAPACITY).build();

  void set(String bizTag, int maxStep) {
    if (maxStep < 1) {
      throw new IllegalArgumentException("maxStep must be at least 1, got " + maxStep);
    }
    Integer old = limits.getIfPresent(bizTag);
    if (old == null || old != maxStep) {
      limits.put(bizTag, maxStep);
    }
  }

  /** Whether the tag has a limit. */
  boolean has(String bizTag) {
    return limits.getIfPresent(bizTag) != null;
  }

  /**
   * {@code step} within the tag's limit; {@link io.leaf.server.store.SegmentStore#TABLE_STEP} as
   * is.
   */
  int cap(String bizTag, int step) {
    if (step == io.leaf.server.store.SegmentStore.TABLE_STEP) {
      return step;
    }
    Integer limit = limits.getIfPresent(bizTag);
    return limit == null ? step : Math.min(step, limit);
  }
}
