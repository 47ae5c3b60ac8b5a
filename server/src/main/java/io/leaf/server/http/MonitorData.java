package io.leaf.server.http;

import com.google.common.base.Ticker;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.engine.TagSnapshot;
import io.leaf.server.engine.TagSnapshot.SegmentView;
import io.leaf.server.formats.FormattedIssuer.PeriodView;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * What the monitor page shows, read from the engine when asked; read-only and without secrets.
 *
 * <p>It holds the tags this server holds (at most {@value #MAX_TAGS}), their segments, effective
 * step, IDs per second (from the cursor's move since the previous look, at least a second ago), the
 * last load; the formatted tags among them (pattern, current period, numbers left in the width),
 * with each period row ({@code tag#key}, an ordinary tag to the engine) marked as the row of its
 * formatted tag; the database's state; the limits with their use and refusals; the worker lease.
 *
 * <p>Thread-safe: {@link #snapshot} is synchronized (it keeps one rate sample per shown tag).
 */
public final class MonitorData {

  static final int MAX_TAGS = 500;
  private static final long RATE_WINDOW_NANOS = 1_000_000_000L;

  /** The key in a period row's name: yyyy, yyyyMM, yyyyMMdd, or {@code all} (never resets). */
  private static final Pattern PERIOD_KEY = Pattern.compile("all|\\d{4}|\\d{6}|\\d{8}");

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

  /**
   * A tag held that is a period row of a formatted tag.
   *
   * @param tag the formatted tag
   * @param key the period's key in the row's name ({@code 20261126}; {@code all}: never resets)
   * @param current whether the formatted tag issues from this row now (else an earlier period's,
   *     held until idle)
   */
  record PeriodOf(String tag, String key, boolean current) {}

  /**
   * A tag's segments as the engine holds them.
   *
   * @param current the segment IDs are taken from
   * @param next the segment loaded ahead; null: none
   * @param effectiveStep the step the tag loads with now
   */
  record Segments(Segment current, Segment next, int effectiveStep) {}

  /**
   * How busy a tag is.
   *
   * @param idsPerSecond IDs taken per second since the previous look
   * @param lastLoadSecondsAgo seconds since its last segment load; -1: none yet
   * @param lastAccessSecondsAgo seconds since its last request
   */
  record Activity(double idsPerSecond, double lastLoadSecondsAgo, double lastAccessSecondsAgo) {}

  /**
   * @param periodOf null for a tag that is no formatted tag's period row
   * @param ordering empty for PER_SERVER; else the ordering, and a STRICT tag's owner
   */
  record TagRow(
      String tag, Segments segments, Activity activity, PeriodOf periodOf, String ordering) {}

  /**
   * A formatted tag whose period rows this server holds.
   *
   * @param period the current period's key, {@code ""} for a format that never resets
   * @param numbersLeft sequences left in the width past this server's cursor; -1 when unknown
   */
  record FormattedRow(String tag, String pattern, String period, String row, long numbersLeft) {}

  record LimitRow(String flag, long limit, Long inUse, long refusals) {}

  /**
   * What the page shows beside a tag's segments.
   *
   * @param formats a formatted tag's current period as this server issues it; empty for a tag
   *     without a format ({@code FormattedIssuer::view})
   * @param ordering empty for a PER_SERVER tag; else its ordering and a STRICT tag's owner ({@code
   *     Ordering::describe})
   */
  public record TagViews(
      Function<String, Optional<PeriodView>> formats, Function<String, String> ordering) {}

  /**
   * The server's state above the tables.
   *
   * @param databaseUp whether the database answers
   * @param cachedTags tags held, of which at most {@value #MAX_TAGS} are listed
   * @param uptimeSeconds seconds since the monitor started
   */
  record ServerState(boolean databaseUp, int cachedTags, double uptimeSeconds) {}

  record Snapshot(
      ServerState server,
      List<TagRow> tags,
      List<FormattedRow> formatted,
      List<LimitRow> limits,
      List<Map.Entry<String, String>> lease) {}

  private record Sample(long start, long end, long cursor, long nanos, double rate) {}

  private final SegmentAllocator allocator;
  private final BooleanSupplier databaseUp;
  private final List<Limit> limits;
  private final Supplier<Map<String, Long>> refusals;
  private final WorkerLeaseView lease;
  private final Function<String, Optional<PeriodView>> formats;
  private final Function<String, String> ordering;
  private final Ticker ticker;
  private final long startNanos;
  private Map<String, Sample> samples = new HashMap<>();

  /**
   * @param refusals calls refused so far by limit flag (empty when metrics are off)
   * @param views a formatted tag's current period as this server issues it, and a tag's ordering
   */
  public MonitorData(
      SegmentAllocator allocator,
      BooleanSupplier databaseUp,
      List<Limit> limits,
      Supplier<Map<String, Long>> refusals,
      WorkerLeaseView lease,
      TagViews views) {
    this.allocator = allocator;
    this.databaseUp = databaseUp;
    this.limits = List.copyOf(limits);
    this.refusals = refusals;
    this.lease = lease;
    this.formats = views.formats();
    this.ordering = views.ordering();
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
    // The formatted tags met among the rows, in the rows' (sorted) order.
    Map<String, Optional<PeriodView>> views = new LinkedHashMap<>();
    if (visible != null) {
      // Tags this caller does not see keep their samples for callers who do (bounded: the
      // samples of the tags shown to anyone, at most a few times MAX_TAGS).
      samples.forEach(
          (tag, sample) -> {
            if (!visible.test(tag) && kept.size() < 4 * MAX_TAGS) {
              kept.put(tag, sample);
            }
          });
    }
    for (String tag :
        visible == null
            ? allocator.cachedTags(MAX_TAGS)
            : allocator.cachedTags(MAX_TAGS, visible)) {
      Optional<TagSnapshot> snap = allocator.snapshot(tag);
      if (snap.isEmpty() || snap.get().current() == null) {
        continue;
      }
      TagSnapshot s = snap.get();
      Segment current = segment(s.current());
      Sample sample = sample(samples.get(tag), current, s.next(), now);
      kept.put(tag, sample);
      rows.add(
          new TagRow(
              tag,
              new Segments(current, s.next() == null ? null : segment(s.next()), s.effectiveStep()),
              new Activity(
                  sample.rate(),
                  s.lastLoadNanos() == 0 ? -1 : seconds(now - s.lastLoadNanos()),
                  seconds(now - s.lastAccessNanos())),
              periodOf(tag, views),
              ordering.apply(tag)));
    }
    samples = kept;
    List<FormattedRow> formatted = new ArrayList<>();
    views.forEach(
        (tag, view) ->
            view.ifPresent(
                v ->
                    formatted.add(
                        new FormattedRow(tag, v.pattern(), v.period(), v.row(), v.numbersLeft()))));
    Map<String, Long> refused = refusals.get();
    List<LimitRow> limitRows =
        limits.stream()
            .map(
                l ->
                    new LimitRow(
                        l.flag(),
                        l.limit(),
                        l.inUse() == null ? null : l.inUse().getAsLong(),
                        refused.getOrDefault(l.flag(), 0L)))
            .toList();
    int held = visible == null ? allocator.cachedCount() : allocator.cachedCount(visible);
    return new Snapshot(
        new ServerState(databaseUp.getAsBoolean(), held, seconds(now - startNanos)),
        rows,
        formatted,
        limitRows,
        lease.rows());
  }

  /**
   * What {@code row} is of a formatted tag: its name is {@code tag#key} with a period key and
   * {@code tag} has a format here; null otherwise (a plain tag, or one whose own name holds a
   * {@code #}).
   */
  private PeriodOf periodOf(String row, Map<String, Optional<PeriodView>> views) {
    String tag = formattedTagOf(row);
    if (tag == null) {
      return null;
    }
    int hash = tag.length();
    Optional<PeriodView> view = views.computeIfAbsent(tag, formats);
    return view.map(v -> new PeriodOf(tag, row.substring(hash + 1), v.row().equals(row)))
        .orElse(null);
  }

  /**
   * The tag whose period row {@code row} may be, by its name ({@code tag#key} with a period key);
   * null when the name is no period row's.
   */
  static String formattedTagOf(String row) {
    int hash = row.lastIndexOf('#');
    if (hash <= 0 || !PERIOD_KEY.matcher(row).region(hash + 1, row.length()).matches()) {
      return null;
    }
    return row.substring(0, hash);
  }

  /**
   * {@code visible} widened to the period rows of the tags it accepts: a caller who may see a
   * formatted tag sees the rows its numbers come from. New tag names hold no {@code #}, so only the
   * server names a row {@code tag#key}.
   */
  static Predicate<String> withPeriodRows(Predicate<String> visible) {
    return row -> {
      if (visible.test(row)) {
        return true;
      }
      String tag = formattedTagOf(row);
      return tag != null && visible.test(tag);
    };
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
    long issued =
        current.start() == prev.start()
            ? cursor - prev.cursor()
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
