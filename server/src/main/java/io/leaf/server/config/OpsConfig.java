package io.leaf.server.config;

import java.nio.file.Path;
import java.time.Duration;

/**
 * How the server is watched and guarded: the metrics port, TLS files and the tokens of the RPCs.
 * {@link #toString} names which are on, never a token.
 *
 * @param metricsPort HTTP port of {@code GET /metrics}; 0: no metrics
 * @param tlsCert PEM certificate chain the server presents; null: plaintext
 * @param tlsKey PEM private key of {@code tlsCert}; null exactly when {@code tlsCert} is
 * @param tlsClientCa PEM certificates client certificates must chain to; null: no client
 *     certificate asked for
 * @param tlsRefresh how often the TLS files are read again, so rotated files take effect
 * @param adminToken bearer token CreateTag, UpdateStep and SetFormat require; null: open
 * @param clientToken bearer token every other LeafService RPC requires (the admin token is accepted
 *     too); null: open
 * @param tokensFile the token file (tokens scoped to tags, with roles and rates); null: none. It
 *     replaces {@code adminToken} and {@code clientToken}, which must then be null
 * @param tokensRefresh how often {@code tokensFile} is read again
 * @param monitorPublic whether the monitor page and its JSON, which list every tag name the server
 *     holds, are served without a token even when tokens are set
 */
public record OpsConfig(
    int metricsPort,
    Path tlsCert,
    Path tlsKey,
    Path tlsClientCa,
    Duration tlsRefresh,
    String adminToken,
    String clientToken,
    Path tokensFile,
    Duration tokensRefresh,
    boolean monitorPublic) {

  public OpsConfig {
    if ((tlsCert == null) != (tlsKey == null)) {
      throw new IllegalArgumentException("--tls-cert and --tls-key go together");
    }
    if (tlsClientCa != null && tlsCert == null) {
      throw new IllegalArgumentException("--tls-client-ca needs --tls-cert and --tls-key");
    }
    if (clientToken != null && adminToken == null) {
      throw new IllegalArgumentException("--client-token needs --admin-token");
    }
    if (clientToken != null && clientToken.equals(adminToken)) {
      throw new IllegalArgumentException("--client-token must differ from --admin-token");
    }
    if (tokensFile != null && adminToken != null) {
      // Two sources of tokens would make "who may do what" depend on both: one file says it all.
      throw new IllegalArgumentException(
          "--tokens-file replaces --admin-token and"
              + " --client-token: put those tokens in the file as lines (NAME sha256:HEX admin *)");
    }
  }

  /** Whether any token is set: then calls are checked against them. */
  public boolean tokensEnabled() {
    return adminToken != null || tokensFile != null;
  }

  public boolean metricsEnabled() {
    return metricsPort > 0;
  }

  public boolean tlsEnabled() {
    return tlsCert != null;
  }

  /** Tokens are secrets: only whether each is set is shown. */
  @Override
  public String toString() {
    return "metrics-port="
        + metricsPort
        + " tls="
        + (tlsCert == null ? "off" : tlsClientCa == null ? "on" : "mutual")
        + " admin-token="
        + (adminToken == null ? "unset" : "set")
        + " client-token="
        + (clientToken == null ? "unset" : "set")
        + " tokens-file="
        + (tokensFile == null ? "unset" : tokensFile)
        + " monitor-public="
        + monitorPublic;
  }
}
