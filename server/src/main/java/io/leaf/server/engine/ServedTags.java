package io.leaf.server.engine;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;

/**
 * Names of tags a segment was loaded for here, so that one dropped by the idle sweeper reloads with
 * the tags this server serves, not against the first-load budget kept for unknown names.
 *
 * <p>Bounded; the least recently loaded names go first. Thread-safe.
 */
final class ServedTags {

  /** Names of served tags remembered after their buffers are dropped (a few MB at most). */
  static final int CAPACITY = 100_000;

  private final Cache<String, Boolean> served =
      CacheBuilder.newBuilder().maximumSize(CAPACITY).build();

  /** True when a segment of {@code bizTag} was loaded on this server (and not forgotten since). */
  boolean contains(String bizTag) {
    return served.getIfPresent(bizTag) != null;
  }

  void add(String bizTag) {
    served.put(bizTag, Boolean.TRUE);
  }

  /** The database no longer has {@code bizTag}: its next load is a first load again. */
  void forget(String bizTag) {
    served.invalidate(bizTag);
  }
}
