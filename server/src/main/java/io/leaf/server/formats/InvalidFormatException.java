package io.leaf.server.formats;

/**
 * A format was refused: its pattern does not parse, or its reset, width or time zone cannot keep
 * numbers unique; the message names the pattern, what is wrong and, where one applies, the
 * position. Maps to INVALID_ARGUMENT.
 */
public final class InvalidFormatException extends RuntimeException {

  private final String pattern;
  private final int position;

  /**
   * @param pattern the pattern as given
   * @param position the 0-based character index the error points at, or -1 when the format as a
   *     whole is at fault (its reset or time zone)
   */
  InvalidFormatException(String pattern, int position, String problem) {
    super(
        "pattern "
            + Text.quote(pattern)
            + ": "
            + problem
            + (position >= 0 ? " (at position " + position + ")" : ""));
    this.pattern = pattern;
    this.position = position;
  }

  /** The pattern as given. */
  public String pattern() {
    return pattern;
  }

  /** The 0-based character index the error points at, or -1 for the format as a whole. */
  public int position() {
    return position;
  }
}
