package io.leaf.server.formats;

/**
 * A format change refused because a value of the new format could equal one of an earlier format of
 * the tag ({@link FormatChanges}), which a server may have issued or may still issue. Maps to
 * INVALID_ARGUMENT.
 */
public final class UnsafeFormatChangeException extends RuntimeException {

  public UnsafeFormatChangeException(String tag, StoredFormat earlier, String reason) {
    super(
        "tag "
            + Text.quote(tag)
            + ": the new format could repeat a value"
            + " of its format version "
            + earlier.version()
            + " ("
            + Text.quote(earlier.pattern())
            + ", "
            + earlier.reset()
            + ", "
            + earlier.timeZone()
            + "): "
            + reason
            + "; a new prefix or another length is a safe change (docs/formatted-ids.md)");
  }
}
