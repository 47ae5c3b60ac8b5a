package io.leaf.server.region;

import io.leaf.server.store.StoreRejectedException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compares a server's {@code --region} with the region its database records, and records it in a
 * database that has none yet; every contradiction is a {@link RegionMismatchException} with a
 * one-line reason.
 *
 * <p>A database without a region is recorded when it is fresh (no {@code leaf_alloc} row), or, for
 * region 0 only, when its table issued without regions (region 0's IDs are its local values, so
 * nothing issued before can come back).
 *
 * <p>Stateless; each check is a few reads and at most one insert.
 */
final class RegionCheck {

  /** The rule this server applies, as {@code leaf_region.rule_name} records it. */
  static final String RULE = "high-bits";

  private static final Logger log = LoggerFactory.getLogger(RegionCheck.class);

  private RegionCheck() {}

  /**
   * Returns when {@code configured} may issue from the database of {@code stored}.
   *
   * @throws RegionMismatchException it may not, or the database refuses to say
   */
  static void verify(Region configured, RegionStore stored) {
    Optional<StoredRegion> row;
    try {
      row = stored.read();
    } catch (RegionUnreadableException e) {
      // Its row may name a region whose IDs this server would repeat, with or without --region.
      throw new RegionMismatchException(
          flag(configured)
              + ": table leaf_region"
              + " cannot be read (every server's user needs SELECT on it): "
              + e.getMessage());
    }
    if (row.isPresent()) {
      compare(configured, row.get());
      return;
    }
    if (configured.isNone()) {
      return;
    }
    StoredRegion claimed;
    try {
      claimed =
          stored.claim(
              new StoredRegion(RULE, configured.region(), configured.regions()),
              highest -> highest.ifPresent(t -> refuseIssuedTable(configured, t)));
    } catch (RegionMismatchException refused) {
      throw refused;
    } catch (StoreRejectedException e) {
      throw new RegionMismatchException(
          "--region "
              + configured
              + ": cannot record the region"
              + " in table leaf_region: "
              + e.getMessage());
    }
    compare(configured, claimed);
    log.info("region {} recorded in table leaf_region", configured);
  }

  /** Refuses to record {@code configured} in a table whose highest row is {@code t}. */
  private static void refuseIssuedTable(Region configured, RegionStore.HighestTag t) {
    if (configured.region() != 0) {
      throw new RegionMismatchException(
          "--region "
              + configured
              + ": leaf_alloc already holds"
              + " IDs issued without a region (tag "
              + t.bizTag()
              + " at max_id "
              + t.maxId()
              + "); only region 0 can take over such a table (docs/regions.md)");
    }
    if (t.maxId() > configured.maxLocalMaxId()) {
      throw new RegionMismatchException(
          "--region "
              + configured
              + ": tag "
              + t.bizTag()
              + " has max_id "
              + t.maxId()
              + ", past region "
              + configured
              + "'s share, whose"
              + " max_id stays at most "
              + configured.maxLocalMaxId());
    }
  }

  /**
   * Returns when the row {@code stored} holds now still matches {@code configured} (a server
   * without {@code --region}: no row); records nothing.
   *
   * @throws RegionMismatchException the row changed, appeared or went away since the start check
   */
  static void recheck(Region configured, RegionStore stored) {
    Optional<StoredRegion> row;
    try {
      row = stored.read();
    } catch (RegionUnreadableException e) {
      throw new RegionMismatchException(
          flag(configured)
              + ": table leaf_region"
              + " cannot be read (every server's user needs SELECT on it): "
              + e.getMessage());
    }
    if (row.isPresent()) {
      compare(configured, row.get());
    } else if (!configured.isNone()) {
      throw new RegionMismatchException(
          "--region "
              + configured
              + ": table leaf_region no"
              + " longer records a region (its row is gone)");
    }
  }

  private static String flag(Region configured) {
    return configured.isNone() ? "no --region" : "--region " + configured;
  }

  private static void compare(Region configured, StoredRegion row) {
    String stored = row.region() + "/" + row.regions();
    if (!RULE.equals(row.rule())) {
      throw new RegionMismatchException(
          "table leaf_region records region "
              + stored
              + " by rule "
              + row.rule()
              + ", which this server does not apply (it applies "
              + RULE
              + ")");
    }
    if (configured.isNone()) {
      throw new RegionMismatchException(
          "the database issues region "
              + stored
              + "'s IDs (table"
              + " leaf_region): start this server with --region "
              + stored);
    }
    if (configured.region() != row.region() || configured.regions() != row.regions()) {
      throw new RegionMismatchException(
          "--region "
              + configured
              + " contradicts the database's"
              + " region "
              + stored
              + " (table leaf_region)"
              + (configured.regions() != row.regions()
                  ? ": every server of every region uses the same n"
                  : ""));
    }
  }
}
