package io.leaf.server.region;

import io.leaf.server.ledger.IssuedRange;
import io.leaf.server.ledger.Ledger;
import java.util.Optional;

/**
 * The {@link Ledger} of a region's share: IDs in, local values to the database, records shifted
 * back; thread-safe when the ledger it wraps is.
 */
public final class RegionalLedger implements Ledger {

  private final Ledger local;
  private final RegionalSegmentStore regional;

  /**
   * @param regional the region's store over the same table; checked before each call
   */
  public RegionalLedger(Ledger local, RegionalSegmentStore regional) {
    this.local = local;
    this.regional = regional;
  }

  /**
   * {@inheritDoc} The ledger holds local values: {@code id} is looked up as the local value of the
   * share, and the record found is shifted back; an ID outside the share holds no record.
   */
  @Override
  public Optional<IssuedRange> whoIssued(String bizTag, long id) {
    regional.verify();
    Region region = regional.region();
    if (region.isNone()) {
      return local.whoIssued(bizTag, id);
    }
    long base = region.base();
    // Below the share: -1, a local value no range holds (asked all the same, so a server without
    // the ledger says so). Above it: local values past every range's end.
    long localId = id < base ? -1 : id - base;
    return local.whoIssued(bizTag, localId).map(r -> r.shifted(base));
  }

  /** {@inheritDoc} The bounds come as IDs of the share and go to the database as local values. */
  @Override
  public boolean handBack(String bizTag, long firstUnissued, long segmentEnd) {
    regional.verify();
    Region region = regional.region();
    long base = region.base();
    if (firstUnissued < base || segmentEnd - base > region.maxLocalMaxId()) {
      return false;
    }
    return local.handBack(bizTag, firstUnissued - base, segmentEnd - base);
  }
}
