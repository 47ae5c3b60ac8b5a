package io.leaf.server.store;

/**
 * A table of Leaf's cannot be used by this server, or the database refused its login: no retry
 * fixes it, so the server refuses to start, and the one-line message names what to fix.
 */
public class UnusableTableException extends StoreRejectedException {

  /*
   * A table: leaf_alloc lacks a column Leaf needs or holds one in a type Leaf cannot use (the
   * message names the table, the column and the type found), or a subclass's reason. A login
   * (loginRefused()): access denied, no such user, or no database of the URL's name; the message
   * names the flags to fix. A running server treats a refused login as an outage (credentials
   * rotated under it), not as a table to fix.
   */

  private final boolean loginRefused;

  public UnusableTableException(String message) {
    this(message, false);
  }

  private UnusableTableException(String message, boolean loginRefused) {
    super(message, null);
    this.loginRefused = loginRefused;
  }

  /** The database refused this server's login or has no database of the URL's name. */
  public static UnusableTableException loginRefused(String message) {
    return new UnusableTableException(message, true);
  }

  /** Whether this is a refused login ({@link #loginRefused(String)}) rather than a table. */
  public boolean loginRefused() {
    return loginRefused;
  }
}
