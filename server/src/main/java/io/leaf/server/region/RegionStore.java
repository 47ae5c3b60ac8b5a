package io.leaf.server.region;

import java.util.Optional;
import java.util.function.Consumer;

/**
 * Where a database records the region it issues for: the one row of {@code leaf_region}, written by
 * the first server started with {@code --region} and read by every server at start.
 *
 * <p>Implementations are thread-safe; failures are this package's exceptions.
 */
public interface RegionStore {

  /**
   * The region stored; empty when the table or its row does not exist.
   *
   * @throws RegionUnreadableException the table exists but this user may not read it
   */
  Optional<StoredRegion> read();

  /**
   * Records {@code wanted} unless a row exists (creating the table when missing), and returns the
   * row stored afterwards: {@code wanted}, or what a racing server stored first.
   */
  default StoredRegion claim(StoredRegion wanted) {
    return claim(wanted, highest -> {});
  }

  /**
   * As {@link #claim(StoredRegion)}, with {@code approve} first shown the {@code leaf_alloc} row
   * with the highest {@code max_id} (empty: no ID was ever issued here) while no segment can be
   * taken; an exception from it records nothing and is thrown.
   */
  StoredRegion claim(StoredRegion wanted, Consumer<Optional<HighestTag>> approve);

  /** The tag whose {@code max_id} is highest, and that value (as the database holds it). */
  record HighestTag(String bizTag, long maxId) {}
}
