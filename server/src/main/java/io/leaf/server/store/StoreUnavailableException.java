package io.leaf.server.store;

/** The database could not be reached, or failed the statement; retrying later may succeed. */
public class StoreUnavailableException extends LeafStoreException {
  public StoreUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
