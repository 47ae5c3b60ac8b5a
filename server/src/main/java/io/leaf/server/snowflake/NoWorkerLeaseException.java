package io.leaf.server.snowflake;

/**
 * Thrown instead of a snowflake ID while the server holds no worker lease it knows to be valid.
 *
 * <p>The server is claiming or renewing one in the background, so a retry may succeed. Maps to
 * UNAVAILABLE.
 */
public final class NoWorkerLeaseException extends RuntimeException {
  public NoWorkerLeaseException(String message) {
    // No stack trace: while the lease is away every call gets one, and each is an answer.
    super(message, null, false, false);
  }
}
