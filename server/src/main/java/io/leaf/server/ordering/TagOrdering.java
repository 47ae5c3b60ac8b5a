package io.leaf.server.ordering;

import io.leaf.v1.Ordering;

/** What order a tag's IDs keep across servers, as {@code leaf_tag_lease.ordering} stores it. */
public enum TagOrdering {
  /** Increasing per server: each server issues from its own segments (no row needed). */
  PER_SERVER(1),
  /** Increasing in real time across every server: one owner issues, the others forward. */
  STRICT(2),
  /** Each server's own segments, every value scattered over the positive int64s. */
  SCATTERED(3);

  private final int code;

  TagOrdering(int code) {
    this.code = code;
  }

  /** The stored value (the proto enum's number). */
  public int code() {
    return code;
  }

  /** The stored value's ordering; an unknown value is refused rather than guessed. */
  public static TagOrdering ofCode(int code) {
    for (TagOrdering o : values()) {
      if (o.code == code) {
        return o;
      }
    }
    throw new IllegalStateException("leaf_tag_lease.ordering holds unknown value " + code);
  }

  /** The request's ordering; unspecified means PER_SERVER. */
  public static TagOrdering of(Ordering proto) {
    return switch (proto) {
      case ORDERING_UNSPECIFIED, PER_SERVER -> PER_SERVER;
      case STRICT -> STRICT;
      case SCATTERED -> SCATTERED;
      case UNRECOGNIZED ->
          throw new IllegalArgumentException(
              "ordering must be PER_SERVER, STRICT or SCATTERED, got an unknown value");
    };
  }

  public Ordering toProto() {
    return Ordering.forNumber(code);
  }
}
