package io.leaf.client;

import io.grpc.Status;

/** The tag's next IDs would pass 2^63-1, so none are issued (OUT_OF_RANGE). */
public final class OutOfRangeException extends LeafException {

  private static final long serialVersionUID = 1L;

  public OutOfRangeException(String description, Throwable cause) {
    super(Status.Code.OUT_OF_RANGE, description, cause);
  }
}
