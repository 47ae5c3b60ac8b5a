package io.leaf.server.ordering;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;

/**
 * An {@link OrderingStore} that passes every method to another; a test overrides the one whose
 * timing it controls (a read held at a gate, a call arriving during an acquisition).
 */
class DelegatingOrderingStore implements OrderingStore {

  final OrderingStore delegate;

  DelegatingOrderingStore(OrderingStore delegate) {
    this.delegate = delegate;
  }

  @Override
  public void createSchemaIfMissing() {
    delegate.createSchemaIfMissing();
  }

  @Override
  public LeaseRow read(String bizTag) {
    return delegate.read(bizTag);
  }

  @Override
  public List<LeaseRow> readAll() {
    return delegate.readAll();
  }

  @Override
  public void setOrdering(String bizTag, TagOrdering ordering) {
    delegate.setOrdering(bizTag, ordering);
  }

  @Override
  public OptionalLong acquire(String bizTag, String owner, long heldEpoch, Duration ttl) {
    return delegate.acquire(bizTag, owner, heldEpoch, ttl);
  }

  @Override
  public boolean renew(String bizTag, String owner, long epoch, Duration ttl) {
    return delegate.renew(bizTag, owner, epoch, ttl);
  }

  @Override
  public void release(String bizTag, String owner, long epoch) {
    delegate.release(bizTag, owner, epoch);
  }
}
