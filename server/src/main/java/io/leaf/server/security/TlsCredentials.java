package io.leaf.server.security;

import io.grpc.ChannelCredentials;
import io.grpc.ServerCredentials;
import io.grpc.TlsChannelCredentials;
import io.grpc.TlsServerCredentials;
import io.grpc.util.AdvancedTlsX509KeyManager;
import io.grpc.util.AdvancedTlsX509TrustManager;
import io.grpc.util.CertificateUtils;
import io.leaf.server.config.TlsConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's TLS credentials from PEM files, re-read every {@code refresh} when a file changed,
 * so that rotated files (a renewed certificate, a re-mounted Secret) serve new connections without
 * a restart.
 *
 * <p>With a client CA, every client must present a certificate that chains to it (mutual TLS).
 * Built on grpc-java's advanced TLS key and trust managers.
 *
 * <p>The refresh is done here rather than by those managers' own file watching, which (in grpc-java
 * 1.68) runs at most once a minute and only when both key and certificate changed; a renewal that
 * keeps its key changes the certificate alone. A certificate is installed only with a key that
 * signs for it, so a rotation caught between its two file writes keeps the previous pair until the
 * next refresh.
 *
 * <p>At start every file is checked and the error names the one that cannot be used; later a broken
 * or mismatched file is logged and the last good credentials keep serving. The re-reads run on the
 * scheduler it is given, shut down by {@link #close()}. Thread-safe.
 */
public final class TlsCredentials implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(TlsCredentials.class);
  private static final byte[] CHALLENGE = "leaf key check".getBytes(StandardCharsets.US_ASCII);

  private final TlsConfig config;
  private final AdvancedTlsX509KeyManager keys = new AdvancedTlsX509KeyManager();
  private final CaFile clientCa;
  private final CaFile peerCa;
  private final ServerCredentials credentials;
  private final ChannelCredentials peerCredentials;
  private final ScheduledExecutorService refresher;
  // Only the refresher thread touches this after the constructor.
  private String identityStamp;

  private TlsCredentials(TlsConfig config, ScheduledExecutorService refresher, boolean peers)
      throws GeneralSecurityException {
    this.config = config;
    this.refresher = refresher;
    loadIdentity();
    if (!peers) {
      TlsServerCredentials.Builder builder = TlsServerCredentials.newBuilder().keyManager(keys);
      // Client certificates name clients, not hosts: the chain is what is checked.
      clientCa =
          CaFile.of(
              "--tls-client-ca",
              config.clientCa(),
              AdvancedTlsX509TrustManager.Verification.CERTIFICATE_ONLY_VERIFICATION);
      if (clientCa != null) {
        builder.trustManager(clientCa.trust).clientAuth(TlsServerCredentials.ClientAuth.REQUIRE);
      }
      credentials = builder.build();
      peerCa = null;
      peerCredentials = null;
    } else {
      clientCa = null;
      credentials = null;
      // An owner is named by its advertised address: its certificate must name that host.
      peerCa =
          CaFile.of(
              "--tls-peer-ca",
              config.peerCa(),
              AdvancedTlsX509TrustManager.Verification.CERTIFICATE_AND_HOST_NAME_VERIFICATION);
      TlsChannelCredentials.Builder peer = TlsChannelCredentials.newBuilder().keyManager(keys);
      if (peerCa != null) {
        peer.trustManager(peerCa.trust);
      }
      peerCredentials = peer.build();
    }
    long period = config.refresh().toNanos();
    refresher.scheduleWithFixedDelay(this::refresh, period, period, TimeUnit.NANOSECONDS);
  }

  /**
   * The server's side: reads and checks the certificate, its key and the client CA, and starts
   * re-reading them on {@code refresher}, which it owns from now on (shut down here if the files
   * cannot be used).
   *
   * @throws IllegalArgumentException one line naming the flag and the file that cannot be used
   */
  public static TlsCredentials load(TlsConfig config, ScheduledExecutorService refresher) {
    return load(config, refresher, false);
  }

  /**
   * As {@link #load}, for the calls this server makes to other servers: the certificate, its key
   * and the peer CA ({@link #peerCredentials}).
   */
  public static TlsCredentials forPeers(TlsConfig config, ScheduledExecutorService refresher) {
    return load(config, refresher, true);
  }

  private static TlsCredentials load(
      TlsConfig config, ScheduledExecutorService refresher, boolean peers) {
    try {
      if (!config.enabled()) {
        throw new IllegalArgumentException("TLS is off: no --tls-cert");
      }
      return new TlsCredentials(config, refresher, peers);
    } catch (GeneralSecurityException e) {
      refresher.shutdownNow();
      throw new IllegalArgumentException("the TLS files cannot be used: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      refresher.shutdownNow();
      throw e;
    }
  }

  /** The server's credentials; only from {@link #load}. */
  public ServerCredentials credentials() {
    if (credentials == null) {
      throw new IllegalStateException("loaded for calls to other servers only");
    }
    return credentials;
  }

  /**
   * For calls this server makes to other servers (a STRICT call forwarded to its owner): this
   * server's certificate offered, theirs checked against {@code --tls-peer-ca} (or the JDK's trust
   * store) and the host they are called by.
   */
  public ChannelCredentials peerCredentials() {
    if (peerCredentials == null) {
      throw new IllegalStateException("loaded for the server's side only");
    }
    return peerCredentials;
  }

  @Override
  public void close() {
    refresher.shutdownNow();
  }

  private void refresh() {
    try {
      if (!stamp(config.cert(), config.key()).equals(identityStamp)) {
        loadIdentity();
        log.info("TLS certificate reloaded from {}", config.cert());
      }
      for (CaFile ca : new CaFile[] {clientCa, peerCa}) {
        if (ca != null && !stamp(ca.file, null).equals(ca.stamp)) {
          ca.load();
          log.info("TLS {} reloaded from {}", ca.flag, ca.file);
        }
      }
    } catch (RuntimeException | IOException e) {
      log.warn("TLS files not reloaded, serving the previous ones: {}", e.getMessage());
    }
  }

  private void loadIdentity() {
    String stamp = stampOrFail("--tls-cert", config.cert(), config.key());
    X509Certificate[] chain = certificates("--tls-cert", config.cert());
    PrivateKey key = privateKey(config.key());
    if (!signsFor(key, chain[0])) {
      throw new IllegalArgumentException(
          "--tls-key "
              + config.key()
              + " is not the key of the certificate in --tls-cert "
              + config.cert());
    }
    keys.updateIdentityCredentials(chain, key);
    identityStamp = stamp;
  }

  /** A CA file's certificates in a trust manager, read again when the file changed. */
  private static final class CaFile {
    final String flag;
    final Path file;
    final AdvancedTlsX509TrustManager trust;
    // Only the refresher thread touches this after the constructor.
    String stamp;

    private CaFile(String flag, Path file, AdvancedTlsX509TrustManager.Verification verification)
        throws GeneralSecurityException {
      this.flag = flag;
      this.file = file;
      this.trust = AdvancedTlsX509TrustManager.newBuilder().setVerification(verification).build();
      load();
    }

    /** The CA file {@code flag} names, or null when it names none. */
    static CaFile of(String flag, Path file, AdvancedTlsX509TrustManager.Verification verification)
        throws GeneralSecurityException {
      return file == null ? null : new CaFile(flag, file, verification);
    }

    void load() {
      String read = stampOrFail(flag, file, null);
      X509Certificate[] cas = certificates(flag, file);
      try {
        trust.updateTrustCredentials(cas);
      } catch (IOException | GeneralSecurityException e) {
        throw new IllegalArgumentException(
            flag + " " + file + " cannot be used: " + e.getMessage(), e);
      }
      stamp = read;
    }
  }

  /** Modification times and sizes: what changes when a file is rewritten. */
  private static String stamp(Path a, Path b) throws IOException {
    FileTime ta = Files.getLastModifiedTime(a);
    String s = ta.toMillis() + "/" + Files.size(a);
    return b == null ? s : s + ";" + Files.getLastModifiedTime(b).toMillis() + "/" + Files.size(b);
  }

  private static String stampOrFail(String flag, Path a, Path b) {
    readable(flag, a);
    if (b != null) {
      readable("--tls-key", b);
    }
    try {
      return stamp(a, b);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read " + a + ": " + e.getMessage(), e);
    }
  }

  private static void readable(String flag, Path file) {
    if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
      throw new IllegalArgumentException(flag + " " + file + " is not a readable file");
    }
  }

  private static X509Certificate[] certificates(String flag, Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      X509Certificate[] certs = CertificateUtils.getX509Certificates(in);
      if (certs.length == 0) {
        throw new IllegalArgumentException(flag + " " + file + " holds no PEM certificate");
      }
      return certs;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(
          flag + " " + file + " holds no valid PEM certificate: " + e.getMessage(), e);
    }
  }

  private static PrivateKey privateKey(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      return CertificateUtils.getPrivateKey(in);
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      throw new IllegalArgumentException(
          "--tls-key " + file + " is not a PEM (PKCS#8) private key: " + e.getMessage(), e);
    }
  }

  /** Whether {@code key} signs what the certificate's public key verifies (RSA and EC keys). */
  private static boolean signsFor(PrivateKey key, X509Certificate cert) {
    String algorithm =
        switch (key.getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC" -> "SHA256withECDSA";
          default -> null;
        };
    if (algorithm == null) {
      // Another kind of key: the TLS handshake is the check.
      return true;
    }
    try {
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(CHALLENGE);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(cert.getPublicKey());
      verifier.update(CHALLENGE);
      return verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }
}
