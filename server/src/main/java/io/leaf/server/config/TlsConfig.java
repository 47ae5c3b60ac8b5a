package io.leaf.server.config;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The PEM files of the server's TLS, and how often they are read again; all null: plaintext. A
 * certificate comes with its key, and a client CA or a peer CA only with both.
 *
 * @param cert PEM certificate chain the server presents (to clients, and to owners it forwards to);
 *     null: plaintext
 * @param key PEM private key of {@code cert}; null exactly when {@code cert} is
 * @param clientCa PEM certificates client certificates must chain to; null: no client certificate
 *     asked for
 * @param peerCa PEM certificates the owners' certificates must chain to when a STRICT call is
 *     forwarded; null: the JDK's trust store
 * @param refresh how often the TLS files are read again, so rotated files take effect
 */
public record TlsConfig(Path cert, Path key, Path clientCa, Path peerCa, Duration refresh) {

  public TlsConfig {
    if ((cert == null) != (key == null)) {
      throw new IllegalArgumentException("--tls-cert and --tls-key go together");
    }
    if (clientCa != null && cert == null) {
      throw new IllegalArgumentException("--tls-client-ca needs --tls-cert and --tls-key");
    }
    if (peerCa != null && cert == null) {
      throw new IllegalArgumentException("--tls-peer-ca needs --tls-cert and --tls-key");
    }
  }

  /** Whether the server speaks TLS. */
  public boolean enabled() {
    return cert != null;
  }
}
