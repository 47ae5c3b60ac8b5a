package io.leaf.server.testing;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Lines of a token file as an operator writes them: the token's secret is "NAME-secret". */
public final class TokenFiles {

  private TokenFiles() {}

  /** The token of {@code name} in the lines {@link #line} writes. */
  public static String secret(String name) {
    return name + "-secret";
  }

  /** {@code sha256:} and the hex SHA-256 of {@code token}. */
  public static String hash(String token) {
    try {
      return "sha256:"
          + HexFormat.of()
              .formatHex(
                  MessageDigest.getInstance("SHA-256")
                      .digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  /** {@code NAME HASH ROLE TAGS [RATE]} for the token {@link #secret}({@code name}). */
  public static String line(String name, String role, String tags, String rate) {
    return name
        + " "
        + hash(secret(name))
        + " "
        + role
        + " "
        + tags
        + (rate == null ? "" : " " + rate)
        + "\n";
  }
}
