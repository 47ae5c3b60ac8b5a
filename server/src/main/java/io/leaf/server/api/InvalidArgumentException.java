package io.leaf.server.api;

/** A request field failed validation; the message names the field and the value. */
final class InvalidArgumentException extends RuntimeException {
  InvalidArgumentException(String message) {
    super(message);
  }
}
