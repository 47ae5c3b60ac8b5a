package io.leaf.server.snowflake;

import io.leaf.server.store.StoreUnavailableException;
import io.leaf.server.store.UnusableTableException;
import java.time.Duration;
import java.util.Optional;

/**
 * Leases of snowflake worker IDs, kept in the database every server shares ({@code leaf_worker}):
 * at most one server holds a worker ID at a time, and whether a lease has ended is judged by the
 * database's clock alone, never by comparing servers' clocks.
 *
 * <p>Implementations are thread-safe; every method is a few short statements and may block on the
 * database, so callers run them on a thread of their own, never a request's.
 */
public interface WorkerLeaseStore {

  /**
   * Creates the lease table when the database has none; leaves an existing one alone.
   *
   * @throws UnusableTableException the table exists but lacks what leases need
   */
  void createSchemaIfMissing();

  /**
   * Claims one worker ID in {@code [fromId, toId]} that nobody holds (never claimed, released, or
   * its lease ended by the database's clock) with one conditional write per attempt, so that of
   * servers racing for the same ID exactly one gets it.
   *
   * @return the lease, its {@code lastTimestampMs} what earlier holders left; empty when every
   *     worker ID in the range is held
   * @throws StoreUnavailableException the database cannot be reached now
   */
  Optional<WorkerLease> claim(int fromId, int toId, String owner, Duration ttl);

  /**
   * Extends {@code owner}'s lease on {@code workerId} to the database's now plus {@code ttl} and
   * records {@code lastTimestampMs} (never lowering what is stored), only while the row still holds
   * at least {@code storedAtLeastMs}: a row deleted, zeroed or moved back since the holder last
   * wrote it is not renewed.
   *
   * @return the renewed lease; empty when the worker ID is no longer {@code owner}'s or its row
   *     went back below {@code storedAtLeastMs}
   * @throws StoreUnavailableException the database cannot be reached now
   */
  Optional<WorkerLease> renew(
      int workerId, String owner, Duration ttl, long lastTimestampMs, long storedAtLeastMs);

  /**
   * Ends {@code owner}'s lease now and records {@code lastTimestampMs}, the exact timestamp of the
   * last ID it issued (it may lower the ceiling the renewals stored: the holder knows it issued
   * nothing above it, and never less than what it started above); does nothing when the worker ID
   * is no longer {@code owner}'s.
   */
  void release(int workerId, String owner, long lastTimestampMs);
}
