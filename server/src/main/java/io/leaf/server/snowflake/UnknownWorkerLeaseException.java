package io.leaf.server.snowflake;

/** A client named a worker lease this server does not hold for it (NOT_FOUND). */
public final class UnknownWorkerLeaseException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public UnknownWorkerLeaseException(String message) {
    super(message);
  }
}
