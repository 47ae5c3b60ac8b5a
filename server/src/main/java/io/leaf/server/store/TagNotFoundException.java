package io.leaf.server.store;

/** The tag has no {@code leaf_alloc} row. */
public final class TagNotFoundException extends LeafStoreException {
  public TagNotFoundException(String bizTag) {
    super("biz_tag not found: " + bizTag + " (create it with CreateTag)", null);
  }
}
