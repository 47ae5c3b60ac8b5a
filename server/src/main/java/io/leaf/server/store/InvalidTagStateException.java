package io.leaf.server.store;

/** The row exists but cannot issue IDs as it stands (for example a step that is not positive). */
public final class InvalidTagStateException extends LeafStoreException {
  public InvalidTagStateException(String message) {
    super(message, null);
  }
}
