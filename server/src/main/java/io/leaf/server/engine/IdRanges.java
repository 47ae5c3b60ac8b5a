package io.leaf.server.engine;

import java.util.Arrays;
import java.util.function.LongConsumer;

/** IDs as half-open ranges {@code [from, to)}, in the order they were taken. */
public final class IdRanges {

  private long[] bounds = new long[4];
  private int ranges;
  private long size;

  public void add(long from, long to) {
    if (from >= to) {
      return;
    }
    if (ranges > 0 && bounds[2 * ranges - 1] == from) {
      bounds[2 * ranges - 1] = to;
    } else {
      if (2 * ranges + 2 > bounds.length) {
        bounds = Arrays.copyOf(bounds, bounds.length * 2);
      }
      bounds[2 * ranges] = from;
      bounds[2 * ranges + 1] = to;
      ranges++;
    }
    size += to - from;
  }

  public int rangeCount() {
    return ranges;
  }

  public long from(int range) {
    return bounds[2 * range];
  }

  public long to(int range) {
    return bounds[2 * range + 1];
  }

  /** How many IDs. */
  public long size() {
    return size;
  }

  public void forEach(LongConsumer action) {
    for (int r = 0; r < ranges; r++) {
      for (long id = bounds[2 * r], to = bounds[2 * r + 1]; id < to; id++) {
        action.accept(id);
      }
    }
  }

  public long[] toArray() {
    long[] out = new long[Math.toIntExact(size)];
    int[] i = {0};
    forEach(id -> out[i[0]++] = id);
    return out;
  }
}
