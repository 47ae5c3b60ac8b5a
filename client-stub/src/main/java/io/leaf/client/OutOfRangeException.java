package io.leaf.client;

import io.grpc.Status;

/**
 * The next IDs would pass their limit, so none are issued (OUT_OF_RANGE): a tag's 2^63-1, a
 * formatted tag's sequence width in the current period (the description names the tag, period and
 * width), or the end of the snowflake layout's time.
 */
public final class OutOfRangeException extends LeafException {

  private static final long serialVersionUID = 1L;

  public OutOfRangeException(String description, Throwable cause) {
    super(Status.Code.OUT_OF_RANGE, description, cause);
  }
}
