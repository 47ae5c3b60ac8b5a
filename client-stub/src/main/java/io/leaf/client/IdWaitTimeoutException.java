package io.leaf.client;

/**
 * {@link CachedIdGenerator#next()} found its local blocks empty and no new block arrived within the
 * generator's maximum wait.
 */
public final class IdWaitTimeoutException extends LeafDeadlineExceededException {

  private static final long serialVersionUID = 1L;

  public IdWaitTimeoutException(String description, Throwable cause) {
    super(description, cause);
  }
}
