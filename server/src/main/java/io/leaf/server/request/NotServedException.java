package io.leaf.server.request;

/** This server does not serve what was asked (yet); the message says what and why. UNAVAILABLE. */
public final class NotServedException extends RuntimeException {

  public NotServedException(String message) {
    super(message, null, false, false);
  }
}
