package io.leaf.server.http;

import com.google.common.base.Ticker;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.engine.TagSnapshot;
import io.leaf.server.engine.TagSnapshot.SegmentView;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * What the monitor page shows, read from the engine when asked: the tags this server holds (at
 * most {@value #MAX_TAGS}), their segments, effective step, IDs per second (from the cursor's move
 * since the previous look, at least a second ago), the last load; the database's state; the
 * limits with their use and refusals; the worker lease. Read-only and without secrets.
 *
 * <p>Thread-safe: {@link #snapshot} is synchronized (it keeps one rate sample per shown tag).
 */
public final class MonitorData {

  static final int MAX_TAGS = 500;
  private static final long RATE_WINDOW_NANOS = 1_000_000_000L;

  /** A limit: its flag, its value, and how much of it is in use now (null when not tracked). */
  public record Limit(String flag, long limit, LongSupplier inUse) {}

  record Segment(long start, long end, long cursor) {
    long used() {
      return Math.min(cursor, end) - start;
    }

    double usedPercent() {
      return end > start ? 100.0 * used() / (end - start) : 100.0;
    }
  }

  record TagRow(String tag, Segment current, Segment next, int effectiveStep,
      double idsPerSecond, double lastLoadSecondsAgo, double lastAccessSecondsAgo) {}

  record LimitRow(String flag, long limit, Long inUse, long refusals) {}

  record Snapshot(boolean databaseUp, int cachedTags, List<TagRow> tags, List<LimitRow> limits,
      List<Map.Entry<String, String>> lease, double uptimeSeconds) {}

  private record Sample(long start, long end, long cursor, long nanos, double rate) {}

  private final SegmentAllocator allocator;
  private final BooleanSupplier databaseUp;
  private final List<Limit> limits;
  private final Supplier<Map<String, Long>> refusals;
  private final WorkerLeaseView lease;
  private final Ticker ticker;
  private final long startNanos;
  private Map<String, Sample> samples = new HashMap<>();

  /**
   * @param refusals calls refused so far by limit flag (empty when metrics are off)
   */
  public MonitorData(SegmentAllocator allocator, BooleanSupplier databaseUp, List<Limit> limits,
      Supplier<Map<String, Long>> refusals, WorkerLeaseView lease) {
    this.allocator = allocator;
    this.databaseUp = databaseUp;
    this.limits = List.copyOf(limits);
    this.refusals = refusals;
    this.lease = lease;
    this.ticker = allocator.ticker();
    this.startNanos = ticker.read();
  }

  synchronized Snapshot snapshot() {
    return snapshot(null);
  }

  /**
   * What a caller who may see only the tags {@code visible} accepts sees: those tags, and their
   * count as the number held; everything else as {@link #snapshot()} shows it.
   *
   * @param visible null: every tag
   */
  synchronized Snapshot snapshot(Predicate<String> visible) {
    long now = ticker.read();
    List<TagRow> rows = new ArrayList<>();
    Map<String, Sample> kept = new HashMap<>();
    if (visible != null) {
      // Tags this caller does not see keep their samples for callers who do (bounded: the
      // samples of the tags shown to anyone, at most a few times MAX_TAGS).
      samples.forEach((tag, sample) -> {
        if (!visible.test(tag) && kept.size() < 4 * MAX_TAGS) {
          kept.put(tag, sample);
        }
      });
    }
    for (String tag : visible == null ? allocator.cachedTags(MAX_TAGS)
        : allocator.cachedTags(MAX_TAGS, visible)) {
      Optional<TagSnapshot> snap = allocator.snapshot(tag);
      if (snap.isEmpty() || snap.get().current() == null) {
        continue;
      }
      TagSnapshot s = snap.get();
      Segment current = segment(s.current());
      Sample sample = sample(samples.get(tag), current, s.next(), now);
      kept.put(tag, sample);
      rows.add(new TagRow(tag, current, s.next() == null ? null : segment(s.next()),
          s.effectiveStep(), sample.rate(),
          s.lastLoadNanos() == 0 ? -1 : seconds(now - s.lastLoadNanos()),
          seconds(now - s.lastAccessNanos())));
    }
    samples = kept;
    Map<String, Long> refused = refusals.get();
    List<LimitRow> limitRows = limits.stream().map(l -> new LimitRow(l.flag(), l.limit(),
        l.inUse() == null ? null : l.inUse().getAsLong(), refused.getOrDefault(l.flag(), 0L)))
        .toList();
    int held = visible == null ? allocator.cachedCount() : allocator.cachedCount(visible);
    return new Snapshot(databaseUp.getAsBoolean(), held, rows, limitRows,
        lease.rows(), seconds(now - startNanos));
  }

  /** The rate since the previous sample, once that is at least a second old; else the last rate. */
  private static Sample sample(Sample prev, Segment current, SegmentView next, long now) {
    long cursor = Math.min(current.cursor(), current.end());
    if (prev == null) {
      return new Sample(current.start(), current.end(), cursor, now, 0);
    }
    if (now - prev.nanos() < RATE_WINDOW_NANOS) {
      return prev;
    }
    long issued = current.start() == prev.start() ? cursor - prev.cursor()
        // Switched segments since: the rest of the old one plus what the new one gave.
        : (prev.end() - prev.cursor()) + (cursor - current.start());
    double rate = Math.max(0, issued) * 1e9 / (now - prev.nanos());
    return new Sample(current.start(), current.end(), cursor, now, rate);
  }

  private static Segment segment(SegmentView v) {
    return new Segment(v.start(), v.end(), v.cursor());
  }

  private static double seconds(long nanos) {
    return Math.max(0, nanos) / 1e9;
  }
}
