package io.leaf.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The leaf health indicator against a live test server, and when it is configured. */
class LeafHealthIndicatorTest {

  private TestLeafServer server;
  private ApplicationContextRunner runner;

  @BeforeEach
  void setUp() throws Exception {
    server = new TestLeafServer();
    runner =
        new ApplicationContextRunner()
            .withConfiguration(
                AutoConfigurations.of(
                    LeafClientAutoConfiguration.class, LeafHealthAutoConfiguration.class))
            .withPropertyValues(
                "leaf.client.target=" + server.target(), "leaf.client.health-timeout=5s");
  }

  @AfterEach
  void tearDown() throws Exception {
    server.close();
  }

  @Test
  void health_whileServingThenAfterTheServerStops_upThenDownWithTheReason() {
    runner.run(
        context -> {
          HealthIndicator indicator = context.getBean("leafHealthIndicator", HealthIndicator.class);
          Health up = indicator.health();
          assertThat(up.getStatus()).as("health of a serving server: " + up).isEqualTo(Status.UP);
          assertThat(up.getDetails())
              .as("details")
              .containsEntry("status", "SERVING")
              .containsEntry("database", "SERVING");

          server.close();
          Health down = indicator.health();

          assertThat(down.getStatus())
              .as("health once the server stopped: " + down)
              .isEqualTo(Status.DOWN);
          assertThat((String) down.getDetails().get("reason"))
              .as("the reason")
              .startsWith("health check failed: UNAVAILABLE");
        });
  }

  @Test
  void health_whenTheServerReportsNotServing_downNamingTheStatus() {
    server.setReadiness(ServingStatus.NOT_SERVING);
    runner.run(
        context -> {
          Health health = context.getBean(LeafHealthIndicator.class).health();
          assertThat(health.getStatus()).as("health: " + health).isEqualTo(Status.DOWN);
          assertThat(health.getDetails())
              .as("details")
              .containsEntry("reason", "the server reports leaf.v1.LeafService as NOT_SERVING");
        });
  }

  @Test
  void health_whenOnlyTheDatabaseIsDown_upWithTheDatabaseAsADetail() {
    server.setDatabase(ServingStatus.NOT_SERVING);
    runner.run(
        context -> {
          Health health = context.getBean(LeafHealthIndicator.class).health();
          assertThat(health.getStatus())
              .as("buffered IDs still flow: " + health)
              .isEqualTo(Status.UP);
          assertThat(health.getDetails()).as("details").containsEntry("database", "NOT_SERVING");
        });
  }

  @Test
  void indicator_whenDisabledOrWithoutSpringBootHealth_absent() {
    runner
        .withPropertyValues("management.health.leaf.enabled=false")
        .run(
            context ->
                assertThat(context)
                    .as("disabled by property")
                    .doesNotHaveBean("leafHealthIndicator"));
    runner
        .withClassLoader(new FilteredClassLoader(HealthIndicator.class))
        .run(
            context ->
                assertThat(context)
                    .as("without spring-boot-health")
                    .doesNotHaveBean("leafHealthIndicator")
                    .hasSingleBean(LeafIdGenerators.class));
  }

  @Test
  void indicator_definedByTheApplication_kept() {
    HealthIndicator own = () -> Health.up().withDetail("own", true).build();
    runner
        .withBean("leafHealthIndicator", HealthIndicator.class, () -> own)
        .run(
            context -> {
              assertThat(context.getBean("leafHealthIndicator"))
                  .as("the application's indicator")
                  .isSameAs(own);
              assertThat(context).doesNotHaveBean(LeafHealthIndicator.class);
            });
  }
}
