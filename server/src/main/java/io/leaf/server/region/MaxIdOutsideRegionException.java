package io.leaf.server.region;

/**
 * CreateTag's {@code max_id} lies in another region's share; the message names the field, the value
 * and this region's share (INVALID_ARGUMENT).
 */
public final class MaxIdOutsideRegionException extends RuntimeException {
  public MaxIdOutsideRegionException(String message) {
    super(message);
  }
}
