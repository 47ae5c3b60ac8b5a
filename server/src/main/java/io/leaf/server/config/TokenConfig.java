package io.leaf.server.config;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The bearer tokens the RPCs require: an admin and a client token given directly, or a token file,
 * never both; all null: every call is open.
 *
 * @param adminToken bearer token CreateTag, UpdateStep and SetFormat require; null: open
 * @param clientToken bearer token every other LeafService RPC requires (the admin token is accepted
 *     too); null: open
 * @param file the token file (tokens scoped to tags, with roles and rates); null: none. It replaces
 *     {@code adminToken} and {@code clientToken}, which must then be null
 * @param refresh how often {@code file} is read again
 */
public record TokenConfig(String adminToken, String clientToken, Path file, Duration refresh) {

  public TokenConfig {
    if (clientToken != null && adminToken == null) {
      throw new IllegalArgumentException("--client-token needs --admin-token");
    }
    if (clientToken != null && clientToken.equals(adminToken)) {
      throw new IllegalArgumentException("--client-token must differ from --admin-token");
    }
    if (file != null && adminToken != null) {
      // Two sources of tokens would make "who may do what" depend on both: one file says it all.
      throw new IllegalArgumentException(
          "--tokens-file replaces --admin-token and"
              + " --client-token: put those tokens in the file as lines (NAME sha256:HEX admin *)");
    }
  }

  /** Whether any token is set: then calls are checked against them. */
  public boolean enabled() {
    return adminToken != null || file != null;
  }

  /** Tokens are secrets: only whether each is set is shown. */
  @Override
  public String toString() {
    return "admin-token="
        + (adminToken == null ? "unset" : "set")
        + " client-token="
        + (clientToken == null ? "unset" : "set")
        + " tokens-file="
        + (file == null ? "unset" : file);
  }
}
