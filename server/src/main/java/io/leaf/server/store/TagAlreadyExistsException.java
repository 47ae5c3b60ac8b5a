package io.leaf.server.store;

/** CreateTag of a {@code biz_tag} that already has a row. */
public final class TagAlreadyExistsException extends LeafStoreException {
  public TagAlreadyExistsException(String bizTag) {
    super("biz_tag already exists: " + bizTag, null);
  }
}
