package io.leaf.server.store;

/**
 * The database refused this server's login (access denied, no such user) or has no database of the
 * URL's name: no retry can fix it, so the server refuses to start, naming the flags to fix.
 */
public final class LoginRefusedException extends UnusableTableException {
  public LoginRefusedException(String message) {
    super(message);
  }
}
