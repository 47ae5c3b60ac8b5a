package io.leaf.client;

import io.grpc.Status;

/**
 * The server's state refuses the call and a retry will not change that (FAILED_PRECONDITION);
 * {@link #description()} says which state.
 *
 * <p>The cases: a formatted-ID call on a tag without a format, an opaque format whose key the
 * server lacks or holds another of ({@code --format-key-file}), or a database that refuses Leaf.
 */
public final class FailedPreconditionException extends LeafException {

  private static final long serialVersionUID = 1L;

  public FailedPreconditionException(String description, Throwable cause) {
    super(Status.Code.FAILED_PRECONDITION, description, cause);
  }
}
