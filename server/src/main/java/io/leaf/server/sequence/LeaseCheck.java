package io.leaf.server.sequence;

/** Whether a lease still holds, as a store in memory checks it in place of the database's row. */
@FunctionalInterface
public interface LeaseCheck {

  /** Whether {@code owner} holds the lease named {@code key} with {@code epoch} now. */
  boolean holds(String key, String owner, long epoch);
}
