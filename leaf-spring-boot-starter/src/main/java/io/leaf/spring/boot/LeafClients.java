package io.leaf.spring.boot;

import io.grpc.ChannelCredentials;
import io.grpc.TlsChannelCredentials;
import io.leaf.client.LeafClient;
import io.leaf.spring.boot.LeafClientProperties.Tls;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;

/**
 * Builds the {@link LeafClient} that {@link LeafClientProperties} describe (one target, or several
 * in order of preference); the client owns its channels.
 */
final class LeafClients {

  private LeafClients() {}

  static LeafClient create(LeafClientProperties p) {
    LeafClient.Builder b =
        (p.getTargets().isEmpty()
                ? LeafClient.forTarget(p.getTarget())
                : LeafClient.forTargets(p.getTargets()))
            .deadline(p.getDeadline())
            .maxAttempts(p.getMaxAttempts())
            .failoverAfter(p.getFailoverAfter())
            .retryPreferredAfter(p.getRetryPreferredAfter())
            .callOwners(p.isCallOwners());
    if (p.getTls().isEnabled()) {
      b.credentials(tls(p.getTls()));
    }
    String token = token(p);
    if (token != null) {
      b.token(token);
    }
    p.getTagTokens().forEach(b::tagToken);
    return b.build();
  }

  private static ChannelCredentials tls(Tls tls) {
    TlsChannelCredentials.Builder b = TlsChannelCredentials.newBuilder();
    try {
      if (tls.getTrustCertificate() != null) {
        b.trustManager(tls.getTrustCertificate().toFile());
      }
      if (tls.getCertificate() != null) {
        b.keyManager(tls.getCertificate().toFile(), tls.getPrivateKey().toFile());
      }
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException(
          LeafClientProperties.PREFIX
              + ".tls: cannot load the certificates or key: "
              + e.getMessage(),
          e);
    }
    return b.build();
  }

  /** The token itself, or read from the token file; null when neither is set. */
  private static String token(LeafClientProperties p) {
    if (p.getToken() != null) {
      return p.getToken();
    }
    if (p.getTokenFile() == null) {
      return null;
    }
    try {
      String token = Files.readString(p.getTokenFile(), StandardCharsets.UTF_8).strip();
      if (token.isEmpty() || !token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
        // Names the file, never its content: it is a secret.
        throw new IllegalStateException(
            LeafClientProperties.PREFIX
                + ".token-file "
                + p.getTokenFile()
                + " must hold one token of printable ASCII without spaces");
      }
      return token;
    } catch (IOException e) {
      throw new UncheckedIOException(
          LeafClientProperties.PREFIX + ".token-file cannot be read: " + p.getTokenFile(), e);
    }
  }
}
