package io.leaf.server.store;

/** Base of the failures a {@link SegmentStore} reports; each maps to one gRPC status. */
public abstract class LeafStoreException extends RuntimeException {
  protected LeafStoreException(String message, Throwable cause) {
    super(message, cause);
  }

  /** An answer rather than a fault (a tag not found): no stack trace is filled in. */
  protected LeafStoreException(String message) {
    super(message, null, false, false);
  }
}
