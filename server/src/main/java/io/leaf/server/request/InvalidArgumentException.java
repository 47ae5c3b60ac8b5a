package io.leaf.server.request;

/** A request field failed validation; the message names the field and the value. */
public final class InvalidArgumentException extends RuntimeException {
  public InvalidArgumentException(String message) {
    super(message);
  }
}
