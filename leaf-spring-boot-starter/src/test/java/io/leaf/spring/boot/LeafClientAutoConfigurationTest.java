package io.leaf.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.leaf.client.CachedIdGenerator;
import io.leaf.client.LeafClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The LeafClient and the generators built from leaf.client.* against a live test server. */
class LeafClientAutoConfigurationTest {

  private TestLeafServer server;
  private ApplicationContextRunner runner;

  @BeforeEach
  void setUp() throws Exception {
    server = new TestLeafServer();
    runner =
        new ApplicationContextRunner()
            .withConfiguration(
                AutoConfigurations.of(
                    LeafClientAutoConfiguration.class,
                    LeafHealthAutoConfiguration.class,
                    LeafMetricsAutoConfiguration.class))
            .withPropertyValues("leaf.client.target=" + server.target());
  }

  @AfterEach
  void tearDown() throws Exception {
    server.close();
  }

  @Test
  void context_withTargetAndGenerator_servesIdsWithTheGeneratorsSettings() {
    runner
        .withPropertyValues(
            "leaf.client.generators.orders.min-block-size=50",
            "leaf.client.generators.orders.max-block-size=50")
        .run(
            context -> {
              assertThat(context)
                  .hasSingleBean(LeafClient.class)
                  .hasSingleBean(LeafIdGenerators.class);
              LeafIdGenerators generators = context.getBean(LeafIdGenerators.class);
              assertThat(generators.tags())
                  .as("configured tags are built at start")
                  .containsExactly("orders");

              CachedIdGenerator orders = generators.get("orders");
              assertThat(orders.next()).as("the test server's first ID").isEqualTo(1);
              assertThat(server.reserveCounts())
                  .as("reservations of the configured block size")
                  .containsExactly(50);
              assertThat(generators.get("orders")).as("one generator per tag").isSameAs(orders);
            });
  }

  @Test
  void get_unconfiguredTag_buildsAGeneratorWithTheDefaults() {
    runner.run(
        context -> {
          CachedIdGenerator users = context.getBean(LeafIdGenerators.class).get("users");
          assertThat(users.next()).as("first ID of a tag asked for in code").isEqualTo(1);
          assertThat(server.reserveCounts())
              .as("the default first reservation")
              .containsExactly(1000);
        });
  }

  @Test
  void get_pastMaxGenerators_failsNamingTheProperty() {
    runner
        .withPropertyValues(
            "leaf.client.max-generators=1", "leaf.client.generators.orders.max-wait=1s")
        .run(
            context -> {
              LeafIdGenerators generators = context.getBean(LeafIdGenerators.class);
              assertThatThrownBy(() -> generators.get("users"))
                  .as("a second generator when the limit is one")
                  .isInstanceOf(IllegalStateException.class)
                  .hasMessageContaining("leaf.client.max-generators (1)");
              assertThatThrownBy(() -> generators.get(""))
                  .as("an empty tag")
                  .isInstanceOf(IllegalArgumentException.class);
            });
  }

  @Test
  void closingTheContext_closesGeneratorsThenTheClientsChannel() {
    AtomicReference<CachedIdGenerator> generator = new AtomicReference<>();
    AtomicReference<LeafClient> client = new AtomicReference<>();
    runner
        .withPropertyValues("leaf.client.generators.orders.min-block-size=10")
        .run(
            context -> {
              generator.set(context.getBean(LeafIdGenerators.class).get("orders"));
              client.set(context.getBean(LeafClient.class));
              assertThat(generator.get().next()).as("an ID while open").isPositive();
            });

    assertThatThrownBy(() -> generator.get().next())
        .as("a generator after the context closed")
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThat(((ManagedChannel) client.get().channel()).isShutdown())
        .as("the client's own channel is shut down with the context")
        .isTrue();
  }

  @Test
  void token_isSentAsBearerOnEveryCall() {
    runner
        .withPropertyValues("leaf.client.token=s3cret-token")
        .run(
            context -> {
              context.getBean(LeafIdGenerators.class).get("orders").next();
              assertThat(server.authorizations())
                  .as("authorization headers received")
                  .isNotEmpty()
                  .allMatch("Bearer s3cret-token"::equals);
            });
  }

  @Test
  void tagTokens_longestPrefixWinsOtherTagsSendTheToken() {
    runner
        .withPropertyValues(
            "leaf.client.token=default-token",
            "leaf.client.tag-tokens[orders]=orders-token",
            "leaf.client.tag-tokens[orders.eu]=eu-token")
        .run(
            context -> {
              LeafIdGenerators generators = context.getBean(LeafIdGenerators.class);
              generators.get("orders.eu.x").next();
              generators.get("orders").next();
              generators.get("users").next();
              assertThat(server.authorizations())
                  .as("one token per tag, in call order")
                  .containsExactly(
                      "Bearer eu-token", "Bearer orders-token", "Bearer default-token");
              assertThat(context.getBean(LeafClientProperties.class).toString())
                  .as("the properties' text")
                  .contains("orders.eu")
                  .doesNotContain("eu-token");
            });
  }

  @Test
  void tokenFile_isReadAndItsTokenSent(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("leaf-token"), "file-token\n");
    runner
        .withPropertyValues("leaf.client.token-file=" + file)
        .run(
            context -> {
              context.getBean(LeafIdGenerators.class).get("orders").next();
              assertThat(server.authorizations())
                  .as("authorization headers received")
                  .isNotEmpty()
                  .allMatch("Bearer file-token"::equals);
              assertThat(context.getBean(LeafClientProperties.class).toString())
                  .as("the properties' text")
                  .doesNotContain("file-token");
            });
  }

  @Test
  void userBeans_areKeptAndUsedByTheAutoConfiguration() {
    LeafClient own = LeafClient.forTarget(server.target()).maxAttempts(1).build();
    try {
      runner
          .withPropertyValues("leaf.client.target=127.0.0.1:1")
          .withBean("myLeafClient", LeafClient.class, () -> own)
          .run(
              context -> {
                assertThat(context).hasSingleBean(LeafClient.class);
                assertThat(context.getBean(LeafClient.class))
                    .as("the application's client")
                    .isSameAs(own);
                // The target property points nowhere: IDs arrive only through the user's client.
                assertThat(context.getBean(LeafIdGenerators.class).get("orders").next())
                    .as("an ID fetched through the application's client")
                    .isEqualTo(1);
              });
    } finally {
      own.close();
    }
  }

  @Test
  void userGenerators_replaceTheAutoConfiguredOnes() {
    try (LeafClient own = LeafClient.forTarget(server.target()).build()) {
      runner
          .withBean(
              "myGenerators", LeafIdGenerators.class, () -> new LeafIdGenerators(own, Map.of(), 3))
          .run(
              context -> {
                assertThat(context).hasSingleBean(LeafIdGenerators.class);
                assertThat(context.getBean(LeafIdGenerators.class))
                    .as("the application's generators")
                    .isSameAs(context.getBean("myGenerators"));
              });
    }
  }

  @Test
  void snowflakeIds_fromTheClient_increasingAndOverridable() {
    runner.run(
        context -> {
          LeafSnowflakeIds ids = context.getBean(LeafSnowflakeIds.class);
          long first = ids.nextId();
          assertThat(ids.nextId())
              .as("the next ID of the server's SnowflakeService")
              .isEqualTo(first + 1);
        });
    LeafSnowflakeIds mine = LeafSnowflakeIds.of(() -> 7, n -> new long[n]);
    runner
        .withBean(LeafSnowflakeIds.class, () -> mine)
        .run(
            context ->
                assertThat(context.getBean(LeafSnowflakeIds.class))
                    .as("the user's bean is kept")
                    .isSameAs(mine));
  }
}
