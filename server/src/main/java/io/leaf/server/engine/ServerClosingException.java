package io.leaf.server.engine;

/**
 * The server is shutting down: neither the segment engine nor the snowflake generator issues IDs
 * any more (UNAVAILABLE; another server answers).
 */
public final class ServerClosingException extends RuntimeException {
  public ServerClosingException() {
    super("server is shutting down", null, false, false);
  }
}
