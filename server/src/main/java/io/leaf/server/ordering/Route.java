package io.leaf.server.ordering;

/**
 * Where one call on a tag goes: this server's own segments as before (PER_SERVER), the same with
 * each ID scattered (SCATTERED), this server's segments as the tag's owner in term {@code term}
 * (ISSUE), or the owner (FORWARD).
 */
record Route(Kind kind, String owner, TagOwnership ownership, long term) {

  enum Kind {
    PER_SERVER,
    SCATTERED,
    ISSUE,
    FORWARD
  }

  static final Route PER_SERVER = new Route(Kind.PER_SERVER, "", null, 0);

  static final Route SCATTERED = new Route(Kind.SCATTERED, "", null, 0);

  static Route forward(String owner) {
    return new Route(Kind.FORWARD, owner, null, 0);
  }

  static Route issue(TagOwnership ownership, long term) {
    return new Route(Kind.ISSUE, "", ownership, term);
  }
}
