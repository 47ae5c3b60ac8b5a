package io.leaf.server.ordering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.stub.MetadataUtils;
import io.leaf.server.LeafServer;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.testing.Poll;
import io.leaf.server.testing.TestCertificates;
import io.leaf.server.wiring.LeafServerBuilder;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.Ordering;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * STRICT calls forwarded between two TLS servers (the production path, one H2 file): the owner is
 * reached over TLS, with this server's certificate offered where the owner asks for one, and an
 * owner whose certificate is not trusted is not called.
 */
class ForwardedTlsTest {

  @TempDir Path dir;
  private TestCertificates certs;
  private Path cert;
  private Path key;
  private Path ca;
  private Path otherCa;
  private Path clientCert;
  private Path clientKey;
  private final List<AutoCloseable> open = new ArrayList<>();

  @BeforeEach
  void writeCertificates() throws Exception {
    certs = new TestCertificates("leaf-fleet-ca");
    cert = dir.resolve("tls.crt");
    key = dir.resolve("tls.key");
    ca = dir.resolve("ca.crt");
    otherCa = dir.resolve("other-ca.crt");
    certs.issue("leaf-server").writeTo(cert, key);
    clientCert = dir.resolve("client.crt");
    clientKey = dir.resolve("client.key");
    certs.issue("leaf-client").writeTo(clientCert, clientKey);
    certs.writeCa(ca);
    new TestCertificates("another-ca").writeCa(otherCa);
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  private LeafServer start(String peerCa) throws Exception {
    List<String> flags =
        List.of(
            "--port",
            "0",
            "--advertise-address",
            "127.0.0.1:0",
            "--tag-lease-ttl",
            "1s",
            "--db-url",
            "jdbc:h2:file:" + dir.resolve("leaf").toAbsolutePath() + ";MODE=MySQL",
            "--tls-cert",
            cert.toString(),
            "--tls-key",
            key.toString(),
            "--tls-client-ca",
            ca.toString(),
            "--tls-peer-ca",
            peerCa);
    LeafServer server =
        LeafServerBuilder.forConfig(ServerConfig.parse(flags.toArray(String[]::new), env -> null))
            .build()
            .start();
    open.add(server::stop);
    return server;
  }

  /** A client over mutual TLS: the servers ask every caller for a certificate. */
  private LeafServiceGrpc.LeafServiceBlockingStub stub(LeafServer server) throws Exception {
    ChannelCredentials credentials =
        TlsChannelCredentials.newBuilder()
            .trustManager(ca.toFile())
            .keyManager(clientCert.toFile(), clientKey.toFile())
            .build();
    ManagedChannel channel =
        Grpc.newChannelBuilderForAddress("127.0.0.1", server.port(), credentials).build();
    open.add(
        () -> {
          channel.shutdownNow();
          channel.awaitTermination(5, TimeUnit.SECONDS);
        });
    return LeafServiceGrpc.newBlockingStub(channel);
  }

  private static long nextId(LeafServiceGrpc.LeafServiceBlockingStub stub) {
    return stub.withDeadlineAfter(5, TimeUnit.SECONDS)
        .nextId(NextIdRequest.newBuilder().setBizTag("tls.strict").build())
        .getId();
  }

  /** The owner's server A, after its first ID (its wait-out over). */
  private long ownedByFirst(LeafServiceGrpc.LeafServiceBlockingStub a) throws Exception {
    a.withDeadlineAfter(5, TimeUnit.SECONDS)
        .createTag(
            CreateTagRequest.newBuilder()
                .setBizTag("tls.strict")
                .setOrdering(Ordering.STRICT)
                .build());
    return Poll.retry(() -> nextId(a), Duration.ofSeconds(15));
  }

  @Test
  void nonOwner_forwardsOverMutualTls_toTheOwner() throws Exception {
    LeafServer serverA = start(ca.toString());
    LeafServer serverB = start(ca.toString());
    LeafServiceGrpc.LeafServiceBlockingStub a = stub(serverA);
    LeafServiceGrpc.LeafServiceBlockingStub b = stub(serverB);
    long last = ownedByFirst(a);
    for (int i = 0; i < 20; i++) {
      AtomicReference<Metadata> headers = new AtomicReference<>();
      long id =
          nextId(
              b.withInterceptors(
                  MetadataUtils.newCaptureMetadataInterceptor(headers, new AtomicReference<>())));
      assertTrue(id > last, "forwarded ID " + id + " after " + last);
      assertEquals(
          "127.0.0.1:" + serverA.port(), headers.get().get(OwnerHeader.KEY), "served by A");
      last = id;
    }
  }

  @Test
  void serverAuthOnlyCertificate_ownerAsksForClientCertificates_refusalSaysWhy() throws Exception {
    certs.issueServerAuthOnly("leaf-server").writeTo(cert, key);
    LeafServer serverA = start(ca.toString());
    LeafServer serverB = start(ca.toString());
    ownedByFirst(stub(serverA));
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () -> nextId(stub(serverB)),
            "A refuses B's certificate as a client's");
    assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.toString());
    String told = e.getStatus().getDescription();
    assertTrue(!told.contains("\n"), "one line: " + told);
    assertTrue(told.contains("TLS") && told.contains("client authentication"), told);
  }

  @Test
  void ownerNotTrusted_forwardedCallRefused_noIdFromIt() throws Exception {
    LeafServer serverA = start(ca.toString());
    LeafServer serverB = start(otherCa.toString());
    LeafServiceGrpc.LeafServiceBlockingStub a = stub(serverA);
    long before = ownedByFirst(a);
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () -> nextId(stub(serverB)),
            "B trusts another CA: it must not take A's answer");
    assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.toString());
    assertEquals(before + 1, nextId(a), "A issued nothing for B's call");
  }
}
