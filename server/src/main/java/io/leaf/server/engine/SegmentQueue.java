package io.leaf.server.engine;

import java.util.ArrayDeque;

/**
 * The segments a tag loaded ahead of its current one, in ascending order of their starts.
 *
 * <p>Thread-safety: guarded by the tag's stripe lock, except {@link #peek}, which reads a volatile
 * and may be called without it. Most tags never queue more than one segment, so the deque behind
 * the first is created only for a second.
 */
final class SegmentQueue {

  private volatile Segment first;

  /** Segments behind {@link #first}, ascending; null until a second one is queued. */
  private ArrayDeque<Segment> rest;

  /** The lowest queued segment, or null; lock-free. */
  Segment peek() {
    return first;
  }

  /** Takes the lowest queued segment, or returns null. */
  Segment poll() {
    Segment s = first;
    first = rest == null ? null : rest.pollFirst();
    if (rest != null && rest.isEmpty()) {
      rest = null;
    }
    return s;
  }

  /** Queues {@code s} in ascending order. */
  void add(Segment s) {
    if (first == null) {
      first = s;
      return;
    }
    if (rest == null) {
      rest = new ArrayDeque<>(2);
    }
    if (s.start < first.start) {
      rest.addFirst(first);
      first = s;
      return;
    }
    // Loads mostly finish in order: append; a segment lower than the last queued is rare.
    if (rest.isEmpty() || rest.peekLast().start < s.start) {
      rest.addLast(s);
      return;
    }
    ArrayDeque<Segment> sorted = new ArrayDeque<>(rest.size() + 1);
    while (!rest.isEmpty() && rest.peekFirst().start < s.start) {
      sorted.addLast(rest.pollFirst());
    }
    sorted.addLast(s);
    sorted.addAll(rest);
    rest = sorted;
  }

  /** Drops the queued segments that start below {@code floor} (gaps). */
  void dropBelow(long floor) {
    while (first != null && first.start < floor) {
      poll();
    }
  }

  /** The queued segments, ascending. */
  java.util.List<Segment> all() {
    java.util.List<Segment> out = new java.util.ArrayList<>(size());
    if (first != null) {
      out.add(first);
    }
    if (rest != null) {
      out.addAll(rest);
    }
    return out;
  }

  int size() {
    return (first == null ? 0 : 1) + (rest == null ? 0 : rest.size());
  }

  /** The IDs the queued segments hold. */
  long ids() {
    long ids = first == null ? 0 : first.end - first.start;
    if (rest != null) {
      for (Segment s : rest) {
        ids += s.end - s.start;
      }
    }
    return ids;
  }
}
