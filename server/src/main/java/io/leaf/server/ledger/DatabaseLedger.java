package io.leaf.server.ledger;

import io.leaf.server.store.JooqSegmentStore;
import java.util.Optional;

/**
 * The {@link Ledger} on {@code leaf_ledger} beside a {@link JooqSegmentStore} whose takes {@link
 * RecordedTakes} records: WhoIssued reads the records, the hand-back sets {@code max_id} back with
 * a record in one transaction. Thread-safe.
 */
public final class DatabaseLedger implements Ledger {

  private final JooqSegmentStore store;
  private final LedgerSettings settings;

  public DatabaseLedger(JooqSegmentStore store, LedgerSettings settings) {
    this.store = store;
    this.settings = settings;
  }

  /**
   * {@inheritDoc} Reads {@code leaf_ledger} ({@link JooqLedger#holding}).
   *
   * @throws LedgerOffException the store runs without the ledger
   */
  @Override
  public Optional<IssuedRange> whoIssued(String bizTag, long id) {
    if (!settings.on()) {
      throw new LedgerOffException();
    }
    return store.query(
        "read leaf_ledger for " + bizTag,
        "SELECT on leaf_ledger",
        db -> store.mayHold(bizTag) ? JooqLedger.holding(db, bizTag, id) : Optional.empty());
  }

  /**
   * {@inheritDoc} One transaction: the conditional UPDATE of {@code max_id} and, with the ledger
   * on, the {@link RangeKind#RETURNED} record ({@link JooqLedger#recordReturned}).
   */
  @Override
  public boolean handBack(String bizTag, long firstUnissued, long segmentEnd) {
    return store.setBack(
        bizTag,
        firstUnissued,
        segmentEnd,
        (tx, now) -> {
          if (settings.on()) {
            JooqLedger.recordReturned(
                tx, bizTag, firstUnissued, segmentEnd, settings.server(), now);
          }
        });
  }

  /**
   * Deletes at most {@code limit} records older than {@code cutoffMillis} in one statement; returns
   * how many went.
   */
  public int deleteBefore(long cutoffMillis, int limit) {
    return store.query(
        "delete old leaf_ledger records",
        "DELETE on leaf_ledger",
        db -> JooqLedger.deleteBefore(db, cutoffMillis, limit));
  }
}
