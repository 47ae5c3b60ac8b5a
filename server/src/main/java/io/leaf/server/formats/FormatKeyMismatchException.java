package io.leaf.server.formats;

/**
 * An opaque format cannot be served with this server's key (FAILED_PRECONDITION); the message names
 * the tag and both fingerprints, never a key.
 *
 * <p>Either the server has no key, or its key's fingerprint differs from the one stored with the
 * format (two keys on one tag could repeat numbers).
 */
public final class FormatKeyMismatchException extends RuntimeException {

  FormatKeyMismatchException(String message) {
    super(message);
  }
}
