package io.leaf.server.config;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The flags of TLS and of the bearer tokens calls must carry; {@link Flags} lists them under their
 * headings.
 */
final class SecurityFlags {
  static final Flag<Path> TLS_CERT =
      Flag.of(
          "tls-cert",
          "",
          "PEM certificate chain: serve gRPC over TLS only (with --tls-key)",
          Parsers.path());
  static final Flag<Path> TLS_KEY =
      Flag.of("tls-key", "", "PEM private key of --tls-cert", Parsers.path());
  static final Flag<Path> TLS_CLIENT_CA =
      Flag.of(
          "tls-client-ca",
          "",
          "PEM CA certificates: require client certificates (mutual TLS)",
          Parsers.path());
  static final Flag<Path> TLS_PEER_CA =
      Flag.of(
          "tls-peer-ca",
          "",
          "PEM CA certificates other servers' certificates must chain to when a STRICT call is"
              + " forwarded to its owner over TLS (empty: the JDK's trust store)",
          Parsers.path());
  static final Flag<Duration> TLS_REFRESH =
      Flag.of(
          "tls-refresh",
          "1m",
          "how often the TLS files are read again (rotation)",
          Parsers.duration());
  static final Flag<String> ADMIN_TOKEN =
      Flag.of(
          "admin-token",
          "",
          "bearer token CreateTag, UpdateStep and SetFormat require",
          Parsers.text());
  static final Flag<String> ADMIN_TOKEN_FILE =
      Flag.of(
          "admin-token-file",
          "",
          "file holding --admin-token (e.g. a mounted Secret)",
          Parsers.text());
  static final Flag<String> CLIENT_TOKEN =
      Flag.of(
          "client-token",
          "",
          "bearer token every"
              + " other LeafService RPC requires (needs --admin-token, which is accepted too)",
          Parsers.text());
  static final Flag<String> CLIENT_TOKEN_FILE =
      Flag.of("client-token-file", "", "file holding --client-token", Parsers.text());
  static final Flag<Path> TOKENS_FILE =
      Flag.of(
          "tokens-file",
          "",
          "file of scoped tokens, one a line: NAME sha256:HEX issue|reserve|admin TAGS [RATE]"
              + " (instead of --admin-token and --client-token)",
          Parsers.path());
  static final Flag<Duration> TOKENS_REFRESH =
      Flag.of(
          "tokens-refresh",
          "10s",
          "how often --tokens-file is read again (a changed file replaces the tokens)",
          Parsers.duration());
  static final Flag<Boolean> MONITOR_PUBLIC =
      Flag.of(
          "monitor-public",
          "false",
          "true: the"
              + " monitor page GET / and /api/monitor.json, which list every tag name held, need no"
              + " token even with --client-token or --tokens-file",
          Parsers.bool());

  private SecurityFlags() {}
}
