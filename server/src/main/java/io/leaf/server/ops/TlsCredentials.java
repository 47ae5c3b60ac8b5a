package io.leaf.server.ops;

import io.grpc.ServerCredentials;
import io.grpc.TlsServerCredentials;
import io.grpc.util.AdvancedTlsX509KeyManager;
import io.grpc.util.AdvancedTlsX509TrustManager;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The server's TLS credentials from PEM files, read again every {@code tlsRefresh} so that rotated
 * files (a renewed certificate, a re-mounted Secret) serve new connections without a restart.
 * With a client CA, every client must present a certificate that chains to it (mutual TLS).
 *
 * <p>The files are checked once at start, each named in the error when it cannot be used; a later
 * refresh that finds a broken file keeps serving the last good credentials (grpc-java logs it).
 */
public final class TlsCredentials implements AutoCloseable {

  private final ServerCredentials credentials;
  private final ScheduledExecutorService refresher;
  private final List<Closeable> refreshes = new ArrayList<>();

  private TlsCredentials(OpsConfig config) throws IOException, GeneralSecurityException {
    refresher = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "leaf-tls-refresh");
      t.setDaemon(true);
      return t;
    });
    long period = config.tlsRefresh().toMillis();
    AdvancedTlsX509KeyManager keys = new AdvancedTlsX509KeyManager();
    try {
      refreshes.add(keys.updateIdentityCredentialsFromFile(config.tlsCert().toFile(),
          config.tlsKey().toFile(), period, TimeUnit.MILLISECONDS, refresher));
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      // The certificate was checked already: what fails here is the key.
      throw new IllegalArgumentException("--tls-key " + config.tlsKey()
          + " is not a PEM (PKCS#8) private key: " + e.getMessage(), e);
    }
    TlsServerCredentials.Builder builder = TlsServerCredentials.newBuilder().keyManager(keys);
    if (config.tlsClientCa() != null) {
      AdvancedTlsX509TrustManager trust = AdvancedTlsX509TrustManager.newBuilder()
          // Client certificates name clients, not hosts: the chain is what is checked.
          .setVerification(AdvancedTlsX509TrustManager.Verification.CERTIFICATE_ONLY_VERIFICATION)
          .build();
      refreshes.add(trust.updateTrustCredentialsFromFile(config.tlsClientCa().toFile(), period,
          TimeUnit.MILLISECONDS, refresher));
      builder.trustManager(trust).clientAuth(TlsServerCredentials.ClientAuth.REQUIRE);
    }
    credentials = builder.build();
  }

  /**
   * Reads and checks the files {@code config} names and starts re-reading them.
   *
   * @throws IllegalArgumentException one line naming the flag and the file that cannot be used
   */
  public static TlsCredentials load(OpsConfig config) {
    if (!config.tlsEnabled()) {
      throw new IllegalArgumentException("TLS is off: no --tls-cert");
    }
    checkCertificates("--tls-cert", config.tlsCert());
    readable("--tls-key", config.tlsKey());
    if (config.tlsClientCa() != null) {
      checkCertificates("--tls-client-ca", config.tlsClientCa());
    }
    try {
      return new TlsCredentials(config);
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException("--tls-client-ca " + config.tlsClientCa()
          + " cannot be used: " + e.getMessage(), e);
    }
  }

  public ServerCredentials credentials() {
    return credentials;
  }

  @Override
  public void close() {
    for (Closeable refresh : refreshes) {
      try {
        refresh.close();
      } catch (IOException e) {
        // Closing only cancels a scheduled task; nothing to report.
      }
    }
    refresher.shutdownNow();
  }

  private static void readable(String flag, Path file) {
    if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
      throw new IllegalArgumentException(flag + " " + file + " is not a readable file");
    }
  }

  private static void checkCertificates(String flag, Path file) {
    readable(flag, file);
    try (InputStream in = Files.newInputStream(file)) {
      if (CertificateFactory.getInstance("X.509").generateCertificates(in).isEmpty()) {
        throw new IllegalArgumentException(flag + " " + file + " holds no PEM certificate");
      }
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(flag + " " + file + " holds no valid PEM certificate: "
          + e.getMessage());
    }
  }
}
