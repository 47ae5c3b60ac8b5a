package io.leaf.server.security;

/**
 * One token as the server knows it: its name, the SHA-256 digest of the token (never the token
 * itself), what it may do, which tags, and how fast. {@link #toString} shows no digest.
 *
 * @param name how statuses, metrics and logs name the token; never secret
 * @param digest the 32-byte SHA-256 digest of the token
 * @param role what it may do
 * @param scope which tags it may use
 * @param rate its rate limit in IDs; null: none
 */
public record TokenEntry(String name, byte[] digest, Role role, TagScope scope, IdRate rate) {

  public TokenEntry {
    if (digest.length != 32) {
      throw new IllegalArgumentException("a SHA-256 digest has 32 bytes, got " + digest.length);
    }
    digest = digest.clone();
  }

  @Override
  public byte[] digest() {
    return digest.clone();
  }

  /** Never shows the digest. */
  @Override
  public String toString() {
    return name + " " + role.fileName() + " " + scope + (rate == null ? "" : " " + rate);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TokenEntry e
        && name.equals(e.name)
        && role == e.role
        && java.util.Arrays.equals(digest, e.digest)
        && scope.toString().equals(e.scope.toString())
        && java.util.Objects.equals(rate, e.rate);
  }

  @Override
  public int hashCode() {
    return name.hashCode();
  }
}
