package io.leaf.server.ordering;

import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * {@link OrderingStore} in memory, with the same rules as the database's, its clock {@code clock}
 * (for tests and benchmarks; no main-code default builds it). Tests may also move rows back ({@link
 * #put}) or delete them ({@link #delete}), as a restored backup would.
 */
public final class MemoryOrderingStore implements OrderingStore {

  private final InstantSource clock;
  private final Map<String, LeaseRow> rows = new TreeMap<>();

  public MemoryOrderingStore(InstantSource clock) {
    this.clock = clock;
  }

  @Override
  public void createSchemaIfMissing() {}

  @Override
  public synchronized LeaseRow read(String bizTag) {
    LeaseRow r = rows.get(bizTag);
    return r == null ? LeaseRow.none(bizTag) : at(r);
  }

  @Override
  public synchronized List<LeaseRow> readAll() {
    List<LeaseRow> out = new ArrayList<>();
    rows.values().forEach(r -> out.add(at(r)));
    return out;
  }

  @Override
  public synchronized void setOrdering(String bizTag, TagOrdering ordering) {
    LeaseRow r = rows.getOrDefault(bizTag, LeaseRow.none(bizTag));
    rows.put(bizTag, new LeaseRow(bizTag, ordering, r.owner(), r.epoch(), r.expiresMs(), 0));
  }

  @Override
  public synchronized OptionalLong acquire(
      String bizTag, String owner, long heldEpoch, Duration ttl) {
    LeaseRow r = rows.get(bizTag);
    long now = clock.millis();
    if (r == null
        || r.ordering() != TagOrdering.STRICT
        || !(r.owner().isEmpty()
            || r.expiresMs() < now
            || (heldEpoch > 0 && r.owner().equals(owner) && r.epoch() == heldEpoch))) {
      return OptionalLong.empty();
    }
    long epoch = r.epoch() + 1;
    rows.put(bizTag, new LeaseRow(bizTag, r.ordering(), owner, epoch, now + ttl.toMillis(), 0));
    return OptionalLong.of(epoch);
  }

  @Override
  public synchronized boolean renew(String bizTag, String owner, long epoch, Duration ttl) {
    LeaseRow r = rows.get(bizTag);
    if (r == null
        || r.ordering() != TagOrdering.STRICT
        || !r.owner().equals(owner)
        || r.epoch() != epoch) {
      return false;
    }
    rows.put(
        bizTag,
        new LeaseRow(bizTag, r.ordering(), owner, epoch, clock.millis() + ttl.toMillis(), 0));
    return true;
  }

  @Override
  public synchronized void release(String bizTag, String owner, long epoch) {
    LeaseRow r = rows.get(bizTag);
    if (r != null && r.owner().equals(owner) && r.epoch() == epoch) {
      rows.put(bizTag, new LeaseRow(bizTag, r.ordering(), owner, epoch, 0, 0));
    }
  }

  /** Puts {@code row} back as it is (a restored backup); its dbNowMs is ignored. */
  public synchronized void put(LeaseRow row) {
    rows.put(row.bizTag(), row);
  }

  /** Deletes the tag's row (an operator's DELETE). */
  public synchronized void delete(String bizTag) {
    rows.remove(bizTag);
  }

  private LeaseRow at(LeaseRow r) {
    return new LeaseRow(
        r.bizTag(), r.ordering(), r.owner(), r.epoch(), r.expiresMs(), clock.millis());
  }
}
