package io.leaf.server.engine;

/**
 * What this server holds for a tag, read under its lock.
 *
 * @param current null when the tag has no loaded segment
 * @param next null when no segment is loaded ahead
 * @param lastAccessNanos ticker time of the last request
 * @param lastLoadNanos ticker time the last segment load that succeeded started; 0 before one
 */
public record TagSnapshot(
    SegmentView current,
    SegmentView next,
    int effectiveStep,
    long lastAccessNanos,
    long lastLoadNanos) {

  /** A segment's bounds and the next ID it would issue. */
  public record SegmentView(long start, long end, long cursor) {}
}
