package io.leaf.server.engine;

/**
 * A server limit refused the call; the message names the limit and the flag that sets it, e.g. "too
 * many calls waiting for segments (limit 10000, --max-waiting)". Maps to RESOURCE_EXHAUSTED.
 */
public final class LimitExceededException extends RuntimeException {

  private final String flag;

  public LimitExceededException(String what, int limit, String flag) {
    this(what, Integer.toString(limit), flag);
  }

  /**
   * @param limit the limit with its unit where a bare number would mislead, e.g. "67108860 bytes"
   */
  public LimitExceededException(String what, String limit, String flag) {
    // No stack trace: refusals come in floods, and each is an answer, not a fault.
    super(what + " (limit " + limit + ", " + flag + ")", null, false, false);
    this.flag = flag;
  }

  /** The flag that sets the limit, e.g. {@code --max-waiting}: a bounded name to count by. */
  public String flag() {
    return flag;
  }
}
