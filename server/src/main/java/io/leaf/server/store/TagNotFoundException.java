package io.leaf.server.store;

/** The tag has no {@code leaf_alloc} row. */
public final class TagNotFoundException extends LeafStoreException {
  public TagNotFoundException(String bizTag) {
    // No stack trace: names that do not exist come in floods, and each is an answer.
    super("biz_tag not found: " + bizTag + " (create it with CreateTag)");
  }
}
