package io.leaf.client;

import io.grpc.Status;

/** The call did not finish before its deadline (DEADLINE_EXCEEDED). */
public class LeafDeadlineExceededException extends LeafException {

  private static final long serialVersionUID = 1L;

  public LeafDeadlineExceededException(String description, Throwable cause) {
    super(Status.Code.DEADLINE_EXCEEDED, description, cause);
  }
}
