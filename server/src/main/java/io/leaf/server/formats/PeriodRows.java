package io.leaf.server.formats;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.TagAlreadyExistsException;
import io.leaf.server.store.TagNotFoundException;
import io.leaf.server.store.TagRecord;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The {@code leaf_alloc} rows that hold a formatted tag's numbers, one per period, each created on
 * first use by one insert and then served by the engine like any tag.
 *
 * <p>The rows are named {@code tag#key} ({@code tag#all} when the format never resets). A racing
 * server's insert of the same row loses harmlessly; no row is created by a timer.
 *
 * <p>A row is not created for a period earlier than one that already has a row: a server whose
 * clock is far behind must not bring back a period whose row was removed (its numbers would start
 * again at 1). Such a call is refused with {@link PeriodBehindException}.
 *
 * <p>Bounded: remembers the rows known to exist for the last {@value #CAPACITY} periods asked for.
 * Thread-safe; the database work runs on the executor given.
 */
final class PeriodRows {

  static final int CAPACITY = 10_000;

  /** What a row name adds to its tag at most: {@code #yyyyMMdd}. */
  static final int LONGEST_SUFFIX = "#yyyyMMdd".length();

  private static final String NEVER_KEY = "all";

  /** Later rows looked at when a row is missing: a day's worth of periods many times over. */
  private static final int LATER_ROWS_READ = 64;

  private final SegmentStore store;
  private final Executor database;
  private final Cache<String, CompletableFuture<Void>> known =
      CacheBuilder.newBuilder().maximumSize(CAPACITY).build();

  PeriodRows(SegmentStore store, Executor database) {
    this.store = store;
    this.database = database;
  }

  /** The row of {@code period}'s numbers of {@code tag}. */
  static String name(String tag, Period period) {
    return tag + "#" + (period.key().isEmpty() ? NEVER_KEY : period.key());
  }

  /**
   * Completes once the row of {@code period} exists: at once when known, else after a read and, if
   * missing, an insert with {@code max_id} 1 and the tag's own step, at most {@code maxStep}, on
   * the database executor. Completes exceptionally with the store's failure, {@link
   * PeriodBehindException}, or the executor's refusal; a failure is not remembered.
   */
  CompletableFuture<Void> ensure(String tag, Period period, int maxStep) {
    String row = name(tag, period);
    CompletableFuture<Void> f = known.getIfPresent(row);
    if (f != null) {
      return f;
    }
    CompletableFuture<Void> mine = new CompletableFuture<>();
    f = known.asMap().putIfAbsent(row, mine);
    if (f != null) {
      return f;
    }
    try {
      database.execute(
          () -> {
            try {
              create(tag, row, period, maxStep);
              mine.complete(null);
            } catch (RuntimeException | Error e) {
              known.asMap().remove(row, mine);
              mine.completeExceptionally(e);
            }
          });
    } catch (RuntimeException e) {
      known.asMap().remove(row, mine);
      mine.completeExceptionally(e);
    }
    return mine;
  }

  /** Forgets what is known of {@code period}'s row (its tag's format changed, or it vanished). */
  void forget(String tag, Period period) {
    known.invalidate(name(tag, period));
  }

  private void create(String tag, String row, Period period, int maxStep) {
    if (store.getTag(row).isPresent()) {
      return;
    }
    if (!period.key().isEmpty()) {
      String prefix = tag + "#";
      for (TagRecord later : store.listTags(row, LATER_ROWS_READ).tags()) {
        String name = later.bizTag();
        if (!name.startsWith(prefix)) {
          break;
        }
        String key = name.substring(prefix.length());
        // Keys of one reset have one length, and compare as their dates do.
        if (key.length() == period.key().length()
            && key.compareTo(period.key()) > 0
            && key.chars().allMatch(Character::isDigit)) {
          throw new PeriodBehindException(tag, period.key(), key);
        }
      }
    }
    int step =
        store
            .getTag(tag)
            .map(t -> Math.max(1, Math.min(t.step(), maxStep)))
            .orElseThrow(() -> new TagNotFoundException(tag));
    try {
      store.createTag(
          row,
          1,
          step,
          "numbers of "
              + tag
              + " in period "
              + (period.key().isEmpty() ? NEVER_KEY : period.key()));
    } catch (TagAlreadyExistsException raced) {
      // Another server created it first: the row exists, which is all this needs.
    }
  }
}
