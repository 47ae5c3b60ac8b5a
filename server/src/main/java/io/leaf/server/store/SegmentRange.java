package io.leaf.server.store;

/**
 * A range of IDs {@code [start, end)} taken from the database by one committed write.
 *
 * @param step the step actually added to {@code max_id} by that write ({@code end - start})
 * @param tableStep the row's {@code step} column as read when the range was taken
 */
public record SegmentRange(long start, long end, int step, int tableStep) {
  public SegmentRange {
    if (end - start != step) {
      throw new IllegalArgumentException(
          "segment [" + start + ", " + end + ") does not match step " + step);
    }
  }
}
