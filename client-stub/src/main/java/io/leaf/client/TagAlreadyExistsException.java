package io.leaf.client;

import io.grpc.Status;

/** CreateTag of a business tag that already exists (ALREADY_EXISTS). */
public final class TagAlreadyExistsException extends LeafException {

  private static final long serialVersionUID = 1L;

  public TagAlreadyExistsException(String description, Throwable cause) {
    super(Status.Code.ALREADY_EXISTS, description, cause);
  }
}
