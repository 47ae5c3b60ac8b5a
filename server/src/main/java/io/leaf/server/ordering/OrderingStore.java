package io.leaf.server.ordering;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Where each tag's ordering and its owner lease live ({@code leaf_tag_lease}); a tag without a row
 * is PER_SERVER. Every write is one conditional statement, and lease expiry is judged by the
 * database's clock, so two servers never both win an acquisition.
 */
public interface OrderingStore {

  /** Creates the table when missing. */
  void createSchemaIfMissing();

  /** The tag's row, or {@link LeaseRow#none} when it has none. */
  LeaseRow read(String bizTag);

  /** Every row (one per tag whose ordering was ever set), with the database's clock. */
  List<LeaseRow> readAll();

  /** What a key without a row means: {@link LeaseRow#none}, a PER_SERVER tag, unless overridden. */
  default LeaseRow missing(String bizTag) {
    return LeaseRow.none(bizTag);
  }

  /** Sets the tag's ordering, keeping its owner and lease as they are. */
  void setOrdering(String bizTag, TagOrdering ordering);

  /**
   * Takes the lease of a STRICT tag when nobody holds it (no owner, or an expired lease) or when
   * the row still shows the lease this process holds ({@code owner} with {@code heldEpoch}), with a
   * new epoch.
   *
   * <p>A row naming {@code owner} with another epoch is not taken before it expires: it is an
   * earlier run's lease, or another server's that advertises the same address.
   *
   * @param heldEpoch the epoch this process last acquired for the tag; 0 when none
   * @return the new epoch; empty when another owner holds it or the tag is not STRICT
   */
  OptionalLong acquire(String bizTag, String owner, long heldEpoch, Duration ttl);

  /** Extends the lease while the row still names this owner, epoch and STRICT. */
  boolean renew(String bizTag, String owner, long epoch, Duration ttl);

  /**
   * {@link #renew} of each lease in {@code held} (its key and the epoch held), in as few statements
   * as the store can.
   *
   * @return the keys renewed
   */
  default Set<String> renewAll(Map<String, Long> held, String owner, Duration ttl) {
    Set<String> renewed = new HashSet<>();
    held.forEach(
        (key, epoch) -> {
          if (renew(key, owner, epoch, ttl)) {
            renewed.add(key);
          }
        });
    return renewed;
  }

  /** Ends the lease now if it is still this owner's (the next owner still waits out the TTL). */
  void release(String bizTag, String owner, long epoch);
}
