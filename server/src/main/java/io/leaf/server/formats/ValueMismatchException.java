package io.leaf.server.formats;

/**
 * A value handed to {@link FormattedIds#parse} does not have the shape of the tag's format; the
 * message names the tag, the value (escaped, cut at 64 characters) and the first difference. Maps
 * to INVALID_ARGUMENT.
 */
public final class ValueMismatchException extends RuntimeException {

  ValueMismatchException(String tag, String pattern, String value, String problem) {
    // No stack trace: a caller's typo is an answer, not a fault, and may come in floods.
    super(
        "value "
            + Text.quote(value)
            + " does not match the format "
            + Text.quote(pattern)
            + " of tag "
            + Text.quote(tag)
            + ": "
            + problem,
        null,
        false,
        false);
  }
}
