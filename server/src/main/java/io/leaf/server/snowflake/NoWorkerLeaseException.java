package io.leaf.server.snowflake;

/**
 * The server holds no worker lease it knows to be valid, so it issues no snowflake ID; it is
 * claiming or renewing one in the background, and a retry may succeed. Maps to UNAVAILABLE.
 */
public final class NoWorkerLeaseException extends RuntimeException {
  public NoWorkerLeaseException(String message) {
    // No stack trace: while the lease is away every call gets one, and each is an answer.
    super(message, null, false, false);
  }
}
