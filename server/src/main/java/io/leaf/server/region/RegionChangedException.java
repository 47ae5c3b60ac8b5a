package io.leaf.server.region;

import io.leaf.server.store.StoreRejectedException;

/**
 * A take refused because the database's {@code leaf_region} row no longer matches this server's
 * {@code --region} (or its absence): nothing was taken. The message names the row and the flag.
 */
public final class RegionChangedException extends StoreRejectedException {
  public RegionChangedException(String message) {
    super(message, null);
  }
}
