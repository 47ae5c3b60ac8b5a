package io.leaf.server.engine;

import com.google.common.base.Ticker;
import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import java.time.Duration;

/**
 * Tags the database said it does not have, remembered for a short TTL so that repeated calls for
 * them answer NOT_FOUND without a database round trip each.
 *
 * <p>Bounded: at most {@link #CAPACITY} names, the least recently added dropped first. A tag created
 * through this server is forgotten at once ({@link #remove}); one created through another server
 * sharing the database is seen after at most the TTL. Thread-safe.
 */
final class MissingTags {

  /** About 10 MB of short names at most; a flood of distinct names only shortens their stay. */
  static final int CAPACITY = 50_000;

  private final Cache<String, Boolean> names;

  MissingTags(Duration ttl, Ticker ticker) {
    this.names = CacheBuilder.newBuilder()
        .expireAfterWrite(ttl)
        .maximumSize(ttl.isZero() ? 0 : CAPACITY)
        .ticker(ticker)
        .build();
  }

  boolean contains(String bizTag) {
    return names.getIfPresent(bizTag) != null;
  }

  void add(String bizTag) {
    names.put(bizTag, Boolean.TRUE);
  }

  void remove(String bizTag) {
    names.invalidate(bizTag);
  }
}
