package io.leaf.client;

import io.grpc.Status;

/**
 * The server, or its database, could not be reached, even after the channel's retries
 * (UNAVAILABLE).
 */
public final class LeafUnavailableException extends LeafException {

  private static final long serialVersionUID = 1L;

  public LeafUnavailableException(String description, Throwable cause) {
    super(Status.Code.UNAVAILABLE, description, cause);
  }
}
