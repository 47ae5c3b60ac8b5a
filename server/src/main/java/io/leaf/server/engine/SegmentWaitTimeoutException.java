package io.leaf.server.engine;

/** No segment arrived within the time the caller was willing to wait. */
public final class SegmentWaitTimeoutException extends RuntimeException {
  public SegmentWaitTimeoutException(String bizTag, long waitedNanos) {
    super("no segment of biz_tag " + bizTag + " arrived from the database within "
        + waitedNanos / 1_000_000 + " ms");
  }
}
