package io.leaf.server.security;

/**
 * Who a call comes from, as the token it sent resolves: the token's name, role and tags, its rate
 * bucket (null: no limit) and the meter its IDs are counted on. Immutable apart from the bucket.
 */
public record Caller(
    String name, Role role, TagScope scope, IdBucket bucket, TokenMeters.Meter meter) {

  /** Whether this caller may see and use {@code tag}. */
  public boolean allows(String tag) {
    return scope.allows(tag);
  }

  @Override
  public String toString() {
    return name;
  }
}
