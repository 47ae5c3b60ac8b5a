package io.leaf.server.region;

import io.leaf.server.store.UnusableTableException;

/**
 * This server's {@code --region} contradicts the region its database is set up for (or the database
 * cannot say); the message is one line naming both. Refuses the start, as an unusable table does,
 * and every segment while it lasts.
 */
public final class RegionMismatchException extends UnusableTableException {
  public RegionMismatchException(String message) {
    super(message);
  }
}
