package io.leaf.server.engine;

/**
 * How long a call may wait for segments: until {@code atNanos} on the allocator's ticker.
 *
 * @param atNanos the ticker time at which waiting ends
 * @param totalNanos the whole wait the call was given, for the timeout's message
 * @param callersDeadline true when the end is the caller's own deadline (DEADLINE_EXCEEDED), false
 *     when it is the server's cap on waiting (UNAVAILABLE)
 */
public record WaitDeadline(long atNanos, long totalNanos, boolean callersDeadline) {

  SegmentWaitTimeoutException timeout(String bizTag) {
    return new SegmentWaitTimeoutException(bizTag, totalNanos, callersDeadline);
  }
}
