package io.leaf.server.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.leaf.server.LeafServer;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.testing.Poll;
import io.leaf.server.testing.TestCertificates;
import io.leaf.server.wiring.LeafServerBuilder;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdRequest;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The real Netty server over TLS with certificates made here; clients over real channels. */
class TlsTest {

  @TempDir Path dir;
  private TestCertificates certs;
  private Path cert;
  private Path key;
  private Path ca;
  private final List<AutoCloseable> open = new ArrayList<>();

  @BeforeEach
  void writeCertificates() throws Exception {
    certs = new TestCertificates("leaf-test-ca");
    cert = dir.resolve("tls.crt");
    key = dir.resolve("tls.key");
    ca = dir.resolve("ca.crt");
    certs.issue("leaf-server").writeTo(cert, key);
    certs.writeCa(ca);
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  private LeafServer start(String... tlsFlags) throws Exception {
    List<String> flags =
        new ArrayList<>(
            List.of(
                "--port",
                "0",
                "--db-url",
                "jdbc:h2:file:" + dir.resolve("leaf").toAbsolutePath() + ";MODE=MySQL"));
    flags.addAll(List.of(tlsFlags));
    LeafServer server =
        LeafServerBuilder.forConfig(ServerConfig.parse(flags.toArray(String[]::new), env -> null))
            .build()
            .start();
    open.add(server::stop);
    server.store().createTag("tls.tag", 1, 100, "");
    return server;
  }

  private LeafServiceGrpc.LeafServiceBlockingStub stub(
      LeafServer server, ChannelCredentials credentials) {
    ManagedChannel channel =
        Grpc.newChannelBuilderForAddress("localhost", server.port(), credentials).build();
    open.add(
        () -> {
          channel.shutdownNow();
          channel.awaitTermination(5, TimeUnit.SECONDS);
        });
    return LeafServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  private static long nextId(LeafServiceGrpc.LeafServiceBlockingStub stub) {
    return stub.nextId(NextIdRequest.newBuilder().setBizTag("tls.tag").build()).getId();
  }

  @Test
  void nextId_tlsClientTrustingTheCa_succeeds() throws Exception {
    LeafServer server = start("--tls-cert", cert.toString(), "--tls-key", key.toString());
    long id =
        nextId(stub(server, TlsChannelCredentials.newBuilder().trustManager(ca.toFile()).build()));
    assertEquals(1, id, "the first ID over TLS");
  }

  @Test
  void nextId_plaintextClientToTlsServer_fails() throws Exception {
    LeafServer server = start("--tls-cert", cert.toString(), "--tls-key", key.toString());
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () -> nextId(stub(server, InsecureChannelCredentials.create())),
            "a TLS-only server must not answer plaintext");
    assertEquals(io.grpc.Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.toString());
  }

  @Test
  void nextId_mutualTlsWithClientCertificate_succeeds() throws Exception {
    LeafServer server =
        start(
            "--tls-cert",
            cert.toString(),
            "--tls-key",
            key.toString(),
            "--tls-client-ca",
            ca.toString());
    Path clientCert = dir.resolve("client.crt");
    Path clientKey = dir.resolve("client.key");
    certs.issue("leaf-client").writeTo(clientCert, clientKey);
    long id =
        nextId(
            stub(
                server,
                TlsChannelCredentials.newBuilder()
                    .trustManager(ca.toFile())
                    .keyManager(clientCert.toFile(), clientKey.toFile())
                    .build()));
    assertEquals(1, id, "the first ID over mutual TLS");
  }

  @Test
  void nextId_mutualTlsWithoutClientCertificate_fails() throws Exception {
    LeafServer server =
        start(
            "--tls-cert",
            cert.toString(),
            "--tls-key",
            key.toString(),
            "--tls-client-ca",
            ca.toString());
    assertThrows(
        StatusRuntimeException.class,
        () ->
            nextId(
                stub(server, TlsChannelCredentials.newBuilder().trustManager(ca.toFile()).build())),
        "mutual TLS must refuse a client without a certificate");
  }

  @Test
  void rotation_filesRewritten_newConnectionsSeeNewCertificate() throws Exception {
    LeafServer server =
        start("--tls-cert", cert.toString(), "--tls-key", key.toString(), "--tls-refresh", "100ms");
    BigInteger first = serverSerial(server);
    TestCertificates.Issued renewed = certs.issue("leaf-server-renewed");
    renewed.writeTo(cert, key);
    // Some file systems keep whole seconds: make the rewrite visibly newer.
    FileTime later = FileTime.from(Instant.now().plusSeconds(5));
    Files.setLastModifiedTime(cert, later);
    Files.setLastModifiedTime(key, later);
    BigInteger seen =
        Poll.retry(
            () -> {
              BigInteger serial = serverSerial(server);
              if (!serial.equals(renewed.serial())) {
                throw new IllegalStateException("the server still presents serial " + serial);
              }
              return serial;
            },
            e -> e instanceof IllegalStateException,
            Duration.ofSeconds(10));
    assertEquals(
        renewed.serial(),
        seen,
        "a new connection after the refresh gets the renewed"
            + " certificate (first was "
            + first
            + ")");
  }

  @Test
  void production_unreadableCertificate_failsNamingTheFile() throws Exception {
    Path garbage = dir.resolve("garbage.crt");
    Files.writeString(garbage, "not a certificate");
    ServerConfig config =
        ServerConfig.parse(
            new String[] {
              "--port", "0", "--tls-cert", garbage.toString(), "--tls-key", key.toString()
            },
            env -> null);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> LeafServerBuilder.forConfig(config).build());
    assertTrue(e.getMessage().startsWith("--tls-cert " + garbage), e.getMessage());
    assertTrue(!e.getMessage().contains("\n"), "one line: " + e.getMessage());
  }

  @Test
  void peerCa_withoutCertificate_refusedNamingTheFlags() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ServerConfig.parse(new String[] {"--tls-peer-ca", ca.toString()}, env -> null));
    assertEquals("--tls-peer-ca needs --tls-cert and --tls-key", e.getMessage());
  }

  @Test
  void production_unreadablePeerCa_failsNamingTheFlag() {
    Path missing = dir.resolve("missing-ca.crt");
    ServerConfig config =
        ServerConfig.parse(
            new String[] {
              "--port",
              "0",
              "--tls-cert",
              cert.toString(),
              "--tls-key",
              key.toString(),
              "--tls-peer-ca",
              missing.toString()
            },
            env -> null);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> LeafServerBuilder.forConfig(config).build().start().stop());
    assertEquals("--tls-peer-ca " + missing + " is not a readable file", e.getMessage());
  }

  @Test
  void production_missingKey_failsNamingTheFile() {
    Path missing = dir.resolve("missing.key");
    ServerConfig config =
        ServerConfig.parse(
            new String[] {
              "--port", "0", "--tls-cert", cert.toString(), "--tls-key", missing.toString()
            },
            env -> null);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> LeafServerBuilder.forConfig(config).build());
    assertEquals("--tls-key " + missing + " is not a readable file", e.getMessage());
  }

  @Test
  void production_keyNotPem_failsNamingTheKey() throws Exception {
    Files.writeString(key, "-----BEGIN PRIVATE KEY-----\nnonsense\n-----END PRIVATE KEY-----\n");
    ServerConfig config =
        ServerConfig.parse(
            new String[] {
              "--port", "0", "--tls-cert", cert.toString(), "--tls-key", key.toString()
            },
            env -> null);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> LeafServerBuilder.forConfig(config).build());
    assertTrue(e.getMessage().startsWith("--tls-key " + key), e.getMessage());
  }

  @Test
  void production_keyOfAnotherCertificate_failsNamingTheKey() throws Exception {
    certs.issue("someone-else").writeTo(dir.resolve("other.crt"), key);
    ServerConfig config =
        ServerConfig.parse(
            new String[] {
              "--port", "0", "--tls-cert", cert.toString(), "--tls-key", key.toString()
            },
            env -> null);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> LeafServerBuilder.forConfig(config).build());
    assertEquals(
        "--tls-key " + key + " is not the key of the certificate in --tls-cert " + cert,
        e.getMessage());
  }

  /** The serial of the certificate the server presents to a new connection. */
  private BigInteger serverSerial(LeafServer server) {
    AtomicReference<X509Certificate> presented = new AtomicReference<>();
    X509TrustManager recording =
        new X509TrustManager() {
          @Override
          public void checkClientTrusted(X509Certificate[] chain, String authType) {}

          @Override
          public void checkServerTrusted(X509Certificate[] chain, String authType) {
            presented.set(chain[0]);
          }

          @Override
          public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
          }
        };
    nextId(stub(server, TlsChannelCredentials.newBuilder().trustManager(recording).build()));
    return presented.get().getSerialNumber();
  }
}
