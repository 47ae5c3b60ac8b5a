package io.leaf.server.ordering;

/**
 * A tag's {@code leaf_tag_lease} row as one read saw it, with the database's clock at that read.
 *
 * @param owner the owner's advertised {@code HOST:PORT}; empty when none ever held it
 * @param epoch the owner's term, raised by every acquisition
 * @param expiresMs when the lease ends by the database's clock (epoch millis)
 * @param dbNowMs the database's clock when the row was read
 */
public record LeaseRow(
    String bizTag, TagOrdering ordering, String owner, long epoch, long expiresMs, long dbNowMs) {

  /** The row of a tag that has none: PER_SERVER, never owned. */
  public static LeaseRow none(String bizTag) {
    return new LeaseRow(bizTag, TagOrdering.PER_SERVER, "", 0, 0, 0);
  }

  /** How long the lease still had by the database's clock at the read; 0 when expired. */
  public long remainingMs() {
    return owner.isEmpty() ? 0 : Math.max(0, expiresMs - dbNowMs);
  }
}
