package io.leaf.server.formats;

/**
 * A format version of a tag that another caller stored first ({@link FormatStore#add}): two changes
 * of one tag's format raced, and the one that lost must decide again on the history as it now is.
 * The API answers ABORTED, which the caller may retry.
 */
public final class FormatVersionTakenException extends RuntimeException {

  public FormatVersionTakenException(String bizTag, int version) {
    super(
        "the format of tag "
            + bizTag
            + " was changed by another call at the same time"
            + " (version "
            + version
            + " is taken); read it again and retry");
  }
}
