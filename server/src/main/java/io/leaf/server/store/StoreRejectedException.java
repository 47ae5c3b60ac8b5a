package io.leaf.server.store;

/**
 * The database refused for a reason a retry cannot fix: a privilege the user lacks, a read-only
 * database, a table or value it will not accept. The message carries the database's own reason.
 */
public class StoreRejectedException extends LeafStoreException {
  public StoreRejectedException(String message, Throwable cause) {
    super(message, cause);
  }
}
