package io.leaf.server.region;

import io.leaf.server.store.StoreRejectedException;

/**
 * Table {@code leaf_region} exists but the database refuses this user the read (a user granted
 * {@code leaf_alloc} alone); the message carries the database's reason.
 */
public final class RegionUnreadableException extends StoreRejectedException {
  public RegionUnreadableException(String message, Throwable cause) {
    super(message, cause);
  }
}
