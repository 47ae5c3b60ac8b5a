package io.leaf.server.http;

/** This server does not serve what was asked (yet); the message says what and why. HTTP 503. */
public final class NotServedException extends RuntimeException {

  public NotServedException(String message) {
    super(message, null, false, false);
  }
}
