package io.leaf.server.store;

import java.util.Optional;

/**
 * A {@link SegmentStore} that passes every call to another one; a decorator overrides only the
 * calls it changes (a delayed or failing segment load, say).
 *
 * <p>{@link #reserveRange} is not forwarded: it comes to this store's {@link #nextSegment}, so a
 * decorator of segment loads sees ReserveIds' writes too (and the ledger records them as segments);
 * a decorator that keeps the kind overrides it.
 *
 * <p>Thread-safe when the store it forwards to is.
 */
public abstract class ForwardingSegmentStore implements SegmentStore {

  private final SegmentStore delegate;

  protected ForwardingSegmentStore(SegmentStore delegate) {
    this.delegate = delegate;
  }

  public final SegmentStore delegate() {
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
  public boolean mayHold(String bizTag) {
    return delegate.mayHold(bizTag);
  }

  @Override
  public void ping() {
    delegate.ping();
  }
}
