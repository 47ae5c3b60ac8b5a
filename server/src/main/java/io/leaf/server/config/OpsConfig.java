package io.leaf.server.config;

/**
 * How the server is watched and guarded: the metrics port, the log level, TLS files and the tokens
 * of the RPCs. {@link #toString} names which are on, never a token.
 *
 * @param metricsPort HTTP port of {@code GET /metrics}; 0: no metrics
 * @param logLevel one of {@link Flags#LOG_LEVELS}
 * @param tls the PEM files of the server's TLS and their refresh
 * @param tokens the bearer tokens the RPCs require, or the file that lists them
 * @param monitorPublic whether the monitor page and its JSON, which list every tag name the server
 *     holds, are served without a token even when tokens are set
 */
public record OpsConfig(
    int metricsPort, String logLevel, TlsConfig tls, TokenConfig tokens, boolean monitorPublic) {

  public boolean metricsEnabled() {
    return metricsPort > 0;
  }

  /** Tokens are secrets: only whether each is set is shown. */
  @Override
  public String toString() {
    return "metrics-port="
        + metricsPort
        + " tls="
        + (tls.cert() == null ? "off" : tls.clientCa() == null ? "on" : "mutual")
        + " "
        + tokens
        + " monitor-public="
        + monitorPublic
        + " log-level="
        + logLevel;
  }
}
