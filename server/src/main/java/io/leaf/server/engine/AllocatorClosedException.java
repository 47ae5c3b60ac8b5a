package io.leaf.server.engine;

/** The server is shutting down; no more segments are loaded. */
public final class AllocatorClosedException extends RuntimeException {
  public AllocatorClosedException() {
    super("server is shutting down", null, false, false);
  }
}
