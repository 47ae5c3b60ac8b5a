package io.leaf.server.engine;

import io.leaf.server.store.StoreUnavailableException;

/**
 * What the server's own database check last saw; while it sees the database down, a call that would
 * wait for a segment load (or a database call) fails at once instead of waiting out a connection
 * timeout.
 *
 * <p>Loads themselves still run, since a multi-host URL may reach another node; when the check sees
 * the database answer again, the allocator lets every tag that backs off load at once.
 *
 * <p>Nothing is known down until a check says so (engines without a check never are). Thread-safe.
 */
final class DatabaseGate {

  private volatile String downReason;

  /**
   * @return true when this changes the state (the database was not known down)
   */
  boolean markDown(String reason) {
    boolean changed = downReason == null;
    downReason = reason == null || reason.isEmpty() ? "no reason given" : reason;
    return changed;
  }

  /**
   * @return true when the database was known down until now
   */
  boolean markUp() {
    boolean changed = downReason != null;
    downReason = null;
    return changed;
  }

  /** The failure to answer at once while the database is known down, or null. */
  StoreUnavailableException failure() {
    String reason = downReason;
    return reason == null
        ? null
        : new StoreUnavailableException(
            "database unavailable: the server's database check fails: " + reason, null);
  }
}
