package io.leaf.server.formats;

/**
 * A sequence needs more digits than its field's width: the period's numbers are used up, and
 * nothing longer and nothing wrapped is issued; the message names the tag, the period and the
 * width. Maps to OUT_OF_RANGE.
 */
public final class WidthExhaustedException extends RuntimeException {

  private final String tag;
  private final String periodKey;
  private final int width;

  WidthExhaustedException(String tag, String periodKey, int width, long sequence) {
    // No stack trace: once a period is full every call in it ends here.
    super(
        "tag "
            + Text.quote(tag)
            + " has used every number of "
            + (periodKey.isEmpty() ? "its format" : "period " + periodKey)
            + ": sequence "
            + sequence
            + " needs more than the width of "
            + width
            + " digits",
        null,
        false,
        false);
    this.tag = tag;
    this.periodKey = periodKey;
    this.width = width;
  }

  public String tag() {
    return tag;
  }

  /** The period whose numbers ran out ({@code ""} for a format that never resets). */
  public String periodKey() {
    return periodKey;
  }

  public int width() {
    return width;
  }
}
