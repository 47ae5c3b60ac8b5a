package io.leaf.server.snowflake;

/**
 * A client's worker lease is lost: another holder took the worker ID or its row changed; the client
 * must stop and lease again (FAILED_PRECONDITION: renewing again cannot succeed).
 */
public final class WorkerLeaseLostException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public WorkerLeaseLostException(String message) {
    super(message);
  }
}
