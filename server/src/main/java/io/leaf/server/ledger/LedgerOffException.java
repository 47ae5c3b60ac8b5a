package io.leaf.server.ledger;

import io.leaf.server.store.StoreRejectedException;

/** WhoIssued on a server started with {@code --ledger off}: nothing is recorded to answer from. */
public final class LedgerOffException extends StoreRejectedException {
  public LedgerOffException() {
    super(
        "this server runs with --ledger off: it records no ranges, so it cannot say who issued"
            + " an ID (start it with --ledger on)",
        null);
  }
}
