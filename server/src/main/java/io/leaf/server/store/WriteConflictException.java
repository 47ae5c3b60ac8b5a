package io.leaf.server.store;

/**
 * A write that lost a write conflict (deadlock, lock-wait timeout, Galera certification) on every
 * one of its retries; callers see UNAVAILABLE, which they retry.
 *
 * <p>The database is up and answering: the next attempt may go through at once, so this is no
 * reason to back off as from an outage.
 */
public final class WriteConflictException extends StoreUnavailableException {
  public WriteConflictException(String message, Throwable cause) {
    super(message, cause);
  }
}
