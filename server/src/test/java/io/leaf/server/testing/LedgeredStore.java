package io.leaf.server.testing;

import io.leaf.server.ledger.DatabaseLedger;
import io.leaf.server.ledger.IssuedRange;
import io.leaf.server.ledger.Ledger;
import io.leaf.server.ledger.LedgerOffException;
import io.leaf.server.ledger.LedgerSettings;
import io.leaf.server.ledger.MemoryLedger;
import io.leaf.server.store.ForwardingSegmentStore;
import io.leaf.server.store.JooqSegmentStore;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.store.SegmentRange;
import io.leaf.server.store.SegmentStore;
import java.time.InstantSource;
import java.util.Optional;
import java.util.function.ToIntBiFunction;

/**
 * A store and the ledger of its takes as one object, as tests use them: the server's wiring keeps
 * them apart ({@link TestServer} finds the ledger in it).
 */
public final class LedgeredStore extends ForwardingSegmentStore implements Ledger {

  private final Ledger ledger;
  private final ToIntBiFunction<Long, Integer> deleteBefore;

  private LedgeredStore(
      SegmentStore store, Ledger ledger, ToIntBiFunction<Long, Integer> deleteBefore) {
    super(store);
    this.ledger = ledger;
    this.deleteBefore = deleteBefore;
  }

  /** A memory store whose takes {@code settings} records. */
  public static LedgeredStore memory(InstantSource clock, LedgerSettings settings) {
    MemoryLedger ledger = new MemoryLedger(clock, settings);
    return new LedgeredStore(ledger.store(), ledger, ledger::deleteBefore);
  }

  /** {@code store} (whose guard records as {@code settings} says) with its ledger. */
  public static LedgeredStore database(JooqSegmentStore store, LedgerSettings settings) {
    DatabaseLedger ledger = new DatabaseLedger(store, settings);
    return new LedgeredStore(store, ledger, ledger::deleteBefore);
  }

  /**
   * The ledger a server keeps beside {@code store} with {@code --ledger off}: WhoIssued refused,
   * the hand-back without a record; none for a store of another kind.
   */
  static Ledger ledgerOff(SegmentStore store) {
    if (store instanceof JooqSegmentStore jooq) {
      return new DatabaseLedger(jooq, LedgerSettings.OFF);
    }
    if (store instanceof MemorySegmentStore memory) {
      return new Ledger() {
        @Override
        public Optional<IssuedRange> whoIssued(String bizTag, long id) {
          throw new LedgerOffException();
        }

        @Override
        public boolean handBack(String bizTag, long firstUnissued, long segmentEnd) {
          return memory.setBack(bizTag, firstUnissued, segmentEnd, now -> {});
        }
      };
    }
    return Ledger.NONE;
  }

  /** The store under the ledger. */
  public SegmentStore store() {
    return delegate();
  }

  @Override
  public SegmentRange reserveRange(String bizTag, int count) {
    return delegate().reserveRange(bizTag, count);
  }

  @Override
  public Optional<IssuedRange> whoIssued(String bizTag, long id) {
    return ledger.whoIssued(bizTag, id);
  }

  @Override
  public boolean handBack(String bizTag, long firstUnissued, long segmentEnd) {
    return ledger.handBack(bizTag, firstUnissued, segmentEnd);
  }

  /** The retention's delete: at most {@code limit} records older than {@code cutoffMillis}. */
  public int deleteLedgerBefore(long cutoffMillis, int limit) {
    return deleteBefore.applyAsInt(cutoffMillis, limit);
  }
}
