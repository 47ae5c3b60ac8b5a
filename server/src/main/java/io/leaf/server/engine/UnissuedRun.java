package io.leaf.server.engine;

/**
 * IDs {@code [first, end)} of a tag that its buffer held and never issued, ending at the end of the
 * highest segment it held: what a graceful stop can hand back with one conditional write ({@code
 * max_id} back to {@code first} if it still is {@code end}).
 */
public record UnissuedRun(String bizTag, long first, long end) {

  public long ids() {
    return end - first;
  }

  /**
   * Seals {@code held}, a buffer's segments in ascending order ({@link Segment#seal}), and returns
   * their run as {@link #of} finds it.
   */
  static UnissuedRun seal(String bizTag, java.util.List<Segment> held) {
    long[][] sealed = new long[held.size()][];
    for (int i = 0; i < sealed.length; i++) {
      Segment s = held.get(i);
      sealed[i] = new long[] {s.start, s.end, s.seal()};
    }
    return of(bizTag, sealed);
  }

  /**
   * The run of a buffer's sealed segments, each {@code {start, end, firstUnissued}} in ascending
   * order: the unissued rest of the highest, extended down through each segment below that ends
   * where the one above starts while the one above is wholly unissued; null when the highest
   * segment has nothing left (a run must end where {@code max_id} was left).
   */
  static UnissuedRun of(String bizTag, long[][] sealed) {
    int i = sealed.length - 1;
    long first = sealed[i][2];
    long end = sealed[i][1];
    if (first >= end) {
      return null;
    }
    while (i > 0 && first == sealed[i][0] && sealed[i - 1][1] == sealed[i][0]) {
      i--;
      first = Math.min(first, sealed[i][2]);
    }
    return new UnissuedRun(bizTag, first, end);
  }
}
