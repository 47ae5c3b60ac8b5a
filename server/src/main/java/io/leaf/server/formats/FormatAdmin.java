package io.leaf.server.formats;

import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.StoreRejectedException;
import io.leaf.server.store.TagNotFoundException;
import io.leaf.server.store.TagRecord;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Sets and reads tags' formats, storing a format only when it cannot repeat its own numbers ({@link
 * FormatSpec}) and no value of it can equal one of any earlier format of the tag ({@link
 * FormatChanges}).
 *
 * <p>The second check holds also before the tag's first number: another server may still serve an
 * earlier format, and issue its first numbers under it after this check.
 *
 * <p>Blocking (database I/O): call it on the database threads. Thread-safe; two changes racing on
 * one tag cannot both be stored ({@link io.leaf.server.formats.FormatVersionTakenException}).
 */
public final class FormatAdmin {

  private final SegmentStore tags;
  private final FormatStore formats;
  private final Optional<FormatKey> key;
  private final Consumer<String> changed;

  /**
   * @param key the server's {@code --format-key-file} key, if any
   * @param changed told the tag whose format this server just stored
   */
  public FormatAdmin(
      SegmentStore tags, FormatStore formats, Optional<FormatKey> key, Consumer<String> changed) {
    this.tags = tags;
    this.formats = formats;
    this.key = key;
    this.changed = changed;
  }

  /**
   * Checks what can be checked without the database: the format itself, the key an opaque one
   * needs, and that the table can name the tag's period rows.
   *
   * @param timeZone empty means UTC
   * @throws InvalidFormatException the format, or the tag name for a format, is refused
   * @throws FormatKeyMismatchException an opaque format on a server without a key
   */
  public FormatSpec check(String tag, String pattern, Reset reset, String timeZone) {
    // One spelling of UTC, so the same format read back compares equal to the one given.
    FormatSpec spec =
        FormatSpec.of(pattern, reset, timeZone == null || timeZone.isEmpty() ? "UTC" : timeZone);
    FormattedIds.fingerprintToStore(spec, key);
    if (tag.indexOf('#') >= 0) {
      throw new InvalidFormatException(
          pattern,
          -1,
          "tag "
              + Text.quote(tag)
              + " contains '#',"
              + " which names a formatted tag's period rows (tag#yyyyMMdd); a tag with a format"
              + " must not contain it");
    }
    String longest = tag + "#" + "0".repeat(PeriodRows.LONGEST_SUFFIX - 1);
    if (!tags.mayHold(longest)) {
      throw new InvalidFormatException(
          pattern,
          -1,
          "tag "
              + Text.quote(tag)
              + " is too long"
              + " for a format: its period rows are named "
              + Text.quote(tag + "#yyyyMMdd")
              + " and the table's biz_tag column cannot hold that");
    }
    return spec;
  }

  /**
   * Stores {@code spec} (from {@link #check}) as the tag's current format; a format equal to the
   * current one is left as it is.
   *
   * @throws TagNotFoundException the tag does not exist
   * @throws UnsafeFormatChangeException a value of the new format could equal one of an earlier
   *     format
   */
  public StoredFormat set(String tag, FormatSpec spec) {
    TagRecord row = tags.getTag(tag).orElseThrow(() -> new TagNotFoundException(tag));
    String fingerprint = FormattedIds.fingerprintToStore(spec, key);
    FormatDefinition definition = FormatDefinition.of(spec);
    List<StoredFormat> history = formats.history(row.bizTag());
    if (!history.isEmpty()) {
      StoredFormat newest = history.get(history.size() - 1);
      if (newest.definition().equals(definition) && newest.keyFingerprint().equals(fingerprint)) {
        return newest;
      }
      // Every earlier format, whether or not a period row exists yet: a server that read one
      // serves it until it reads this change, and may create its first row after the check.
      for (StoredFormat earlier : history) {
        FormatSpec before = earlier.definition().spec();
        FormatChanges.Verdict v =
            FormatChanges.assess(before, earlier.keyFingerprint(), spec, fingerprint);
        if (!v.safe()) {
          throw new UnsafeFormatChangeException(tag, earlier, v.reason());
        }
      }
    }
    StoredFormat stored =
        formats.add(new StoredFormat(tag, history.size() + 1, definition, fingerprint, 0));
    changed.accept(tag);
    return stored;
  }

  /** The tag's current format; empty when it has none. */
  public Optional<StoredFormat> current(String tag) {
    return Optional.ofNullable(current(List.of(tag)).get(tag));
  }

  /**
   * The current formats of those of {@code bizTags} that have one. A database that refuses Leaf the
   * {@code leaf_format} table (a user with privileges on {@code leaf_alloc} only) holds no formats:
   * GetTag and ListTags answer without them, and formatted calls name the refusal.
   */
  public Map<String, StoredFormat> current(Collection<String> bizTags) {
    try {
      return formats.current(bizTags);
    } catch (StoreRejectedException e) {
      return Map.of();
    }
  }
}
