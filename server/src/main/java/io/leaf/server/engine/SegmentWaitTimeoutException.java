package io.leaf.server.engine;

/** No segment arrived within the time the caller was willing to wait. */
public final class SegmentWaitTimeoutException extends RuntimeException {

  private final boolean callersDeadline;

  public SegmentWaitTimeoutException(String bizTag, long waitedNanos, boolean callersDeadline) {
    // No stack trace: a timeout is an answer, and under an outage there are many of them.
    super(
        "no segment of biz_tag "
            + bizTag
            + " arrived from the database within "
            + waitedNanos / 1_000_000
            + " ms"
            + (callersDeadline ? "" : " (the server's --max-wait)"),
        null,
        false,
        false);
    this.callersDeadline = callersDeadline;
  }

  /** True when the wait ended at the caller's own deadline, false at the server's cap. */
  public boolean callersDeadline() {
    return callersDeadline;
  }
}
