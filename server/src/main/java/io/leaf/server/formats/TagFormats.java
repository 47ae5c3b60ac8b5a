package io.leaf.server.formats;

import com.google.common.base.Ticker;
import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.TagNotFoundException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The current format of each tag asked for, read from the {@link FormatStore} on the database
 * executor and read again in the background once {@link #REFRESH} old ({@link #ABSENT_REFRESH} for
 * a tag without one).
 *
 * <p>So a format set on another server is served here within that time. Serving an older format
 * meanwhile is safe: a change is only stored when no value of the new format can equal one of an
 * earlier format.
 *
 * <p>A tag with no format is looked up too: if it does not exist at all, its entry fails with
 * {@link TagNotFoundException} instead (remembered for {@link #ABSENT_REFRESH} like an absent
 * format, so an unknown name costs one read a second, not one a call).
 *
 * <p>Bounded: {@value #CAPACITY} tags, least recently asked for go first. Thread-safe; a lookup of
 * a loaded tag is one cache read and one ticker read.
 */
final class TagFormats {

  static final int CAPACITY = 10_000;
  static final Duration REFRESH = Duration.ofSeconds(10);
  static final Duration ABSENT_REFRESH = Duration.ofSeconds(1);

  /** A load, done or in flight, and when it started; {@code next} is a refresh in flight. */
  private static final class Entry {
    final CompletableFuture<Optional<ActiveFormat>> value;
    final long loadedNanos;
    volatile boolean refreshing;

    Entry(CompletableFuture<Optional<ActiveFormat>> value, long loadedNanos) {
      this.value = value;
      this.loadedNanos = loadedNanos;
    }
  }

  private final FormatStore store;
  private final SegmentStore tags;
  private final Executor database;
  private final Ticker ticker;
  private final Optional<FormatKey> key;
  private final Cache<String, Entry> entries =
      CacheBuilder.newBuilder().maximumSize(CAPACITY).build();

  TagFormats(
      FormatStore store,
      SegmentStore tags,
      Executor database,
      Ticker ticker,
      Optional<FormatKey> key) {
    this.store = store;
    this.tags = tags;
    this.database = database;
    this.ticker = ticker;
    this.key = key;
  }

  /** The tag's format when loaded (refreshing it in the background when old); null otherwise. */
  ActiveFormat ready(String tag) {
    Entry e = entries.getIfPresent(tag);
    if (e == null || !e.value.isDone() || e.value.isCompletedExceptionally()) {
      return null;
    }
    Optional<ActiveFormat> f = e.value.join();
    refreshIfOld(tag, e, f.isPresent());
    return f.orElse(null);
  }

  /**
   * The tag's format, loading it first when not loaded; empty when the tag has none; failed with
   * {@link TagNotFoundException} when there is no such tag.
   */
  CompletableFuture<Optional<ActiveFormat>> get(String tag) {
    Entry e = entries.getIfPresent(tag);
    if (e != null) {
      if (!e.value.isCompletedExceptionally()) {
        if (e.value.isDone()) {
          refreshIfOld(tag, e, e.value.join().isPresent());
        }
        return e.value;
      }
      // Only a missing tag stays failed in the cache: look again once it is old enough.
      if (ticker.read() - e.loadedNanos < ABSENT_REFRESH.toNanos()) {
        return e.value;
      }
      entries.asMap().remove(tag, e);
    }
    Entry mine = new Entry(new CompletableFuture<>(), ticker.read());
    e = entries.asMap().putIfAbsent(tag, mine);
    if (e != null) {
      return e.value;
    }
    load(tag, mine, null);
    return mine.value;
  }

  /** Forgets the tag's format (it was just changed here): the next call reads it again. */
  void invalidate(String tag) {
    entries.invalidate(tag);
  }

  private void refreshIfOld(String tag, Entry e, boolean present) {
    long age = ticker.read() - e.loadedNanos;
    long limit = (present ? REFRESH : ABSENT_REFRESH).toNanos();
    if (age < limit || e.refreshing) {
      return;
    }
    e.refreshing = true;
    Entry next = new Entry(new CompletableFuture<>(), ticker.read());
    load(tag, next, e);
  }

  /** Reads the tag's formats into {@code into}; a refresh replaces {@code old} when it succeeds. */
  private void load(String tag, Entry into, Entry old) {
    try {
      database.execute(
          () -> {
            try {
              Optional<ActiveFormat> loaded = current(tag, store.history(tag), old);
              if (loaded.isEmpty() && tags.getTag(tag).isEmpty()) {
                into.value.completeExceptionally(new TagNotFoundException(tag));
              } else {
                into.value.complete(loaded);
              }
              if (old != null) {
                entries.asMap().replace(tag, old, into);
              }
            } catch (RuntimeException | Error failure) {
              if (old == null) {
                entries.asMap().remove(tag, into);
              } else {
                // Keep serving what was read before; try again at the next call.
                old.refreshing = false;
              }
              into.value.completeExceptionally(failure);
            }
          });
    } catch (RuntimeException refused) {
      if (old == null) {
        entries.asMap().remove(tag, into);
      } else {
        old.refreshing = false;
      }
      into.value.completeExceptionally(refused);
    }
  }

  /** The newest stored format, reusing what {@code old} held of it (its period slot). */
  private Optional<ActiveFormat> current(String tag, List<StoredFormat> history, Entry old) {
    if (history.isEmpty()) {
      return Optional.empty();
    }
    StoredFormat newest = history.get(history.size() - 1);
    if (old != null) {
      Optional<ActiveFormat> before = old.value.getNow(Optional.empty());
      if (before.isPresent() && before.get().stored.equals(newest)) {
        return before;
      }
    }
    return Optional.of(ActiveFormat.of(newest, key));
  }
}
