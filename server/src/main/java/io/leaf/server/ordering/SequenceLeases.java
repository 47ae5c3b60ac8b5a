package io.leaf.server.ordering;

import io.leaf.server.sequence.Sequences;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The owner leases of sequence groups ({@link Sequences#leaseKey}) on {@code rows}: a group without
 * a row is free to own, and its row is made on its first acquisition.
 *
 * <p>Thread-safe as {@code rows} is. Only NextSequence routes through these leases, after checking
 * that the tag itself is STRICT, so every group row is STRICT.
 */
final class SequenceLeases implements OrderingStore {

  private final OrderingStore rows;

  SequenceLeases(OrderingStore rows) {
    this.rows = rows;
  }

  @Override
  public void createSchemaIfMissing() {
    rows.createSchemaIfMissing();
  }

  @Override
  public LeaseRow read(String key) {
    LeaseRow r = rows.read(key);
    return r.ordering() == TagOrdering.STRICT ? r : missing(key);
  }

  @Override
  public List<LeaseRow> readAll() {
    return rows.readAll();
  }

  @Override
  public LeaseRow missing(String key) {
    return new LeaseRow(key, TagOrdering.STRICT, "", 0, 0, 0);
  }

  @Override
  public void setOrdering(String key, TagOrdering ordering) {
    throw new UnsupportedOperationException("a sequence group is always STRICT");
  }

  @Override
  public OptionalLong acquire(String key, String owner, long heldEpoch, Duration ttl) {
    OptionalLong won = rows.acquire(key, owner, heldEpoch, ttl);
    if (won.isPresent() || rows.read(key).ordering() == TagOrdering.STRICT) {
      return won;
    }
    // The group's first owner: its row (free, epoch 0), then the same conditional acquisition
    // as every later one, so two first owners at once still yield one.
    rows.setOrdering(key, TagOrdering.STRICT);
    return rows.acquire(key, owner, heldEpoch, ttl);
  }

  @Override
  public boolean renew(String key, String owner, long epoch, Duration ttl) {
    return rows.renew(key, owner, epoch, ttl);
  }

  @Override
  public Set<String> renewAll(Map<String, Long> held, String owner, Duration ttl) {
    return rows.renewAll(held, owner, ttl);
  }

  @Override
  public void release(String key, String owner, long epoch) {
    rows.release(key, owner, epoch);
  }
}
