package io.leaf.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.TlsServerCredentials;
import io.leaf.client.LeafUnavailableException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** leaf.client.tls.* against a server that requires TLS and a client certificate. */
class LeafClientTlsTest {

  @TempDir Path dir;
  private TestLeafServer server;
  private ApplicationContextRunner runner;

  @BeforeEach
  void setUp() throws Exception {
    TestCertificates certs = new TestCertificates();
    certs.writeCa(dir.resolve("ca.pem"));
    certs.issue("leaf-server", dir.resolve("server.pem"), dir.resolve("server.key"));
    certs.issue("leaf-client", dir.resolve("client.pem"), dir.resolve("client.key"));
    server =
        new TestLeafServer(
            TlsServerCredentials.newBuilder()
                .keyManager(dir.resolve("server.pem").toFile(), dir.resolve("server.key").toFile())
                .trustManager(dir.resolve("ca.pem").toFile())
                .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE)
                .build());
    runner =
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LeafClientAutoConfiguration.class))
            .withPropertyValues(
                "leaf.client.target=" + server.localhostTarget(),
                "leaf.client.max-attempts=1",
                "leaf.client.deadline=5s",
                "leaf.client.tls.enabled=true",
                "leaf.client.tls.trust-certificate=" + dir.resolve("ca.pem"));
  }

  @AfterEach
  void tearDown() throws Exception {
    server.close();
  }

  @Test
  void tls_withTrustAndClientCertificate_servesIds() {
    runner
        .withPropertyValues(
            "leaf.client.tls.certificate=" + dir.resolve("client.pem"),
            "leaf.client.tls.private-key=" + dir.resolve("client.key"))
        .run(
            context -> {
              long id = context.getBean(LeafIdGenerators.class).get("orders").next();
              assertThat(id).as("an ID over mutual TLS").isEqualTo(1);
            });
  }

  @Test
  void tls_withoutTheClientCertificate_refusedByTheServer() {
    runner
        .withPropertyValues("leaf.client.generators.orders.max-wait=5s")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThatThrownBy(() -> context.getBean(LeafIdGenerators.class).get("orders").next())
                  .as("a server requiring a client certificate refuses the handshake")
                  .isInstanceOf(LeafUnavailableException.class);
            });
  }
}
