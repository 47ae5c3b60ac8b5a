package io.leaf.server.store;

import io.leaf.server.ledger.IssuedRange;
import java.util.Optional;

/**
 * A {@link SegmentStore} that passes every call to another one; a decorator overrides only the
 * calls it changes (a delayed or failing segment load, say).
 *
 * <p>{@link #reserveRange} is not forwarded: it comes to this store's {@link #nextSegment}, so a
 * decorator of segment loads sees ReserveIds' writes too (and the ledger records them as
 * segments); a decorator that keeps the kind overrides it.
 *
 * <p>Thread-safe when the store it forwards to is.
 */
public abstract class ForwardingSegmentStore implements SegmentStore {

  private final SegmentStore delegate;

  protected ForwardingSegmentStore(SegmentStore delegate) {
    this.delegate = delegate;
  }

  protected final SegmentStore delegate() {
    return delegate;
  }

  @Override
  public TagRecord createTag(String bizTag, long maxId, int step, String description) {
    return delegate.createTag(bizTag, maxId, step, description);
  }

  @Override
  public Optional<TagRecord> getTag(String bizTag) {
    return delegate.getTag(bizTag);
  }

  @Override
  public TagRecord updateStep(String bizTag, int step) {
    return delegate.updateStep(bizTag, step);
  }

  @Override
  public TagPage listTags(String afterBizTag, int limit) {
    return delegate.listTags(afterBizTag, limit);
  }

  @Override
  public SegmentRange nextSegment(String bizTag, int step) {
    return delegate.nextSegment(bizTag, step);
  }

  @Override
  public Optional<IssuedRange> whoIssued(String bizTag, long id) {
    return delegate.whoIssued(bizTag, id);
  }

  @Override
  public boolean handBack(String bizTag, long firstUnissued, long segmentEnd) {
    return delegate.handBack(bizTag, firstUnissued, segmentEnd);
  }

  @Override
  public boolean mayHold(String bizTag) {
    return delegate.mayHold(bizTag);
  }

  @Override
  public void ping() {
    delegate.ping();
  }
}
