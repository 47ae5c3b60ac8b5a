package io.leaf.server.ledger;

import io.leaf.server.store.LeafStoreException;
import java.util.Optional;

/**
 * Who issued an ID, and the hand-back that returns a segment's unissued rest at a graceful stop.
 * Implementations are thread-safe; failures are the store's {@link LeafStoreException}s.
 */
public interface Ledger {

  /**
   * The record that answers for {@code id} of {@code bizTag}: the range that issued it, or the
   * hand-back that returned it unissued; empty when no record holds it.
   *
   * @throws LedgerOffException the server keeps no ledger
   */
  Optional<IssuedRange> whoIssued(String bizTag, long id);

  /**
   * Hands {@code [firstUnissued, segmentEnd)} back: {@code max_id} goes back to {@code
   * firstUnissued} only if it still is {@code segmentEnd}, with a {@link RangeKind#RETURNED} record
   * in the same transaction when the ledger is on.
   *
   * @return true when {@code max_id} was set back; false when another take moved it (nothing
   *     changed) or the range is empty
   */
  boolean handBack(String bizTag, long firstUnissued, long segmentEnd);

  /** No ledger and no hand-back: WhoIssued refused, nothing handed back. */
  Ledger NONE =
      new Ledger() {
        @Override
        public Optional<IssuedRange> whoIssued(String bizTag, long id) {
          throw new LedgerOffException();
        }

        @Override
        public boolean handBack(String bizTag, long firstUnissued, long segmentEnd) {
          return false;
        }
      };
}
