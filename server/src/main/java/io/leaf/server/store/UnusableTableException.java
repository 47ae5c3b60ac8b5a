package io.leaf.server.store;

/**
 * The {@code leaf_alloc} table lacks a column Leaf needs or holds one in a type Leaf cannot use;
 * the message is one line naming the table, the column and the type found.
 */
public final class UnusableTableException extends StoreRejectedException {
  public UnusableTableException(String message) {
    super(message, null);
  }
}
