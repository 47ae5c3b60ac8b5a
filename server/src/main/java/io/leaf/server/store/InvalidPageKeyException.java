package io.leaf.server.store;

/**
 * A ListTags page key the table cannot compare with its {@code biz_tag} column (e.g. a non-ASCII
 * name against Leaf's {@code ascii_bin} column): it cannot have come from this table, so it is the
 * caller's mistake, not a database failure.
 */
public final class InvalidPageKeyException extends LeafStoreException {
  public InvalidPageKeyException(String message, Throwable cause) {
    super(message, cause);
  }
}
