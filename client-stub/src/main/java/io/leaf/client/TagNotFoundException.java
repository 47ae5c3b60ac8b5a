package io.leaf.client;

import io.grpc.Status;

/** The business tag does not exist (NOT_FOUND). */
public final class TagNotFoundException extends LeafException {

  private static final long serialVersionUID = 1L;

  public TagNotFoundException(String description, Throwable cause) {
    super(Status.Code.NOT_FOUND, description, cause);
  }
}
