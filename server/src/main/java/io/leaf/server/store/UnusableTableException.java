package io.leaf.server.store;

/**
 * A table of Leaf's cannot be used by this server: {@code leaf_alloc} lacks a column Leaf needs or
 * holds one in a type Leaf cannot use (the message is one line naming the table, the column and the
 * type found), or a subclass's reason; the server refuses to start on it.
 */
public class UnusableTableException extends StoreRejectedException {
  public UnusableTableException(String message) {
    super(message, null);
  }
}
