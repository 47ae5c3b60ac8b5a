package io.leaf.server.engine;

/**
 * What the engine tells an observer (the server's metrics) about work off the ID path: segment
 * loads and answers from the missing-tag cache. Handing out a buffered ID reports nothing, so
 * watching the engine costs the hot path nothing.
 *
 * <p>Implementations are called on loader and transport threads, must be thread-safe, fast and must
 * not throw; the engine calls them without holding any lock.
 */
public interface EngineEvents {

  /** Reports nothing. */
  EngineEvents NONE = new EngineEvents() {};

  /**
   * A segment load ended.
   *
   * @param first whether it was the first load of a tag this server held nothing of
   * @param nanos how long the store took
   * @param failure why it failed, or null when a segment was loaded
   */
  default void segmentLoaded(boolean first, long nanos, RuntimeException failure) {}

  /**
   * A call found its tag's buffered IDs used up and waited for a segment load: the prefetch fell
   * behind the tag's rate (or the tag was not loaded yet). Reported once per wait: a call that
   * finds the tag dry again when it wakes (others took the new segment first), or a batch that
   * spans segments, waits and is reported again.
   */
  default void segmentWaited() {}

  /**
   * A loaded segment was dropped unused (a gap) because it arrived below the segment already in
   * use: loads side by side finished out of order. Only that case; segments dropped for a tag
   * evicted while loading or below a reservation are not reported here.
   */
  default void segmentDropped() {}

  /** A call for a tag the database lacked was answered NOT_FOUND from memory. */
  default void missingTagHit() {}

  /**
   * The database handed out a range starting below IDs this server already issued for the tag (it
   * went back in time); the overlap was skipped (see {@code RewindGuard}).
   */
  default void segmentRewound() {}
}
