package io.leaf.server.store;

/** The next segment would pass {@link Long#MAX_VALUE}; nothing was taken. */
public final class IdOverflowException extends LeafStoreException {
  public IdOverflowException(String bizTag, long maxId, long step) {
    super(
        "biz_tag "
            + bizTag
            + " is exhausted: max_id "
            + maxId
            + " + step "
            + step
            + " would pass 2^63-1",
        null);
  }

  /** The same failure again, by the message an earlier one carried. */
  public IdOverflowException(String message) {
    super(message, null);
  }
}
