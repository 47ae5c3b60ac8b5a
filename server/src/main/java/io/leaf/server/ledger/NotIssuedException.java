package io.leaf.server.ledger;

import io.leaf.server.store.LeafStoreException;

/** No record of the ledger holds the ID: never issued, issued before the retention, or unknown. */
public final class NotIssuedException extends LeafStoreException {
  public NotIssuedException(String bizTag, long id) {
    super(
        "no range recorded in leaf_ledger holds ID "
            + id
            + " of biz_tag "
            + bizTag
            + " (never taken, taken with --ledger off, or older than --ledger-retention)");
  }
}
