package io.leaf.client;

import io.grpc.Status;

/** The server refused an argument; the description names the field and value (INVALID_ARGUMENT). */
public final class InvalidArgumentException extends LeafException {

  private static final long serialVersionUID = 1L;

  public InvalidArgumentException(String description, Throwable cause) {
    super(Status.Code.INVALID_ARGUMENT, description, cause);
  }
}
