package io.leaf.client;

/**
 * IDs {@code start <= id < end} of one tag that the caller owns: no other call on any server is
 * ever given one of them.
 */
public record IdRange(long start, long end) {

  public IdRange {
    if (end <= start) {
      throw new IllegalArgumentException(
          "range must hold at least one ID: [" + start + ", " + end + ")");
    }
  }

  /** How many IDs. */
  public long size() {
    return end - start;
  }

  /** True when {@code id} is in the range. */
  public boolean contains(long id) {
    return id >= start && id < end;
  }
}
