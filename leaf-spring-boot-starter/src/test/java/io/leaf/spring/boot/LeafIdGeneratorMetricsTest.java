package io.leaf.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.leaf.client.CachedIdGenerator;
import io.leaf.client.LeafClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.Map;
import java.util.function.DoubleSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The generators' meters, bound by Spring Boot's own metrics auto-configuration. */
class LeafIdGeneratorMetricsTest {

  private TestLeafServer server;
  private ApplicationContextRunner runner;

  @BeforeEach
  void setUp() throws Exception {
    server = new TestLeafServer();
    runner =
        new ApplicationContextRunner()
            .withConfiguration(
                AutoConfigurations.of(
                    MetricsAutoConfiguration.class,
                    CompositeMeterRegistryAutoConfiguration.class,
                    SimpleMetricsExportAutoConfiguration.class,
                    LeafClientAutoConfiguration.class,
                    LeafMetricsAutoConfiguration.class))
            .withPropertyValues(
                "leaf.client.target=" + server.target(),
                "leaf.client.max-attempts=1",
                "leaf.client.generators.orders.min-block-size=50",
                "leaf.client.generators.orders.max-block-size=50",
                "leaf.client.generators.orders.refill-threshold=0.9");
  }

  @AfterEach
  void tearDown() throws Exception {
    server.close();
  }

  /** Polls a value the refill thread moves, up to 10 s. */
  private static void awaitAtLeast(String what, DoubleSupplier value, double min)
      throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (value.getAsDouble() < min && System.nanoTime() < end) {
      Thread.sleep(5);
    }
    assertThat(value.getAsDouble()).as(what).isGreaterThanOrEqualTo(min);
  }

  @Test
  void meters_afterTakingIds_countServedLeftAndRefillsPerTag() {
    runner.run(
        context -> {
          MeterRegistry registry = context.getBean(MeterRegistry.class);
          CachedIdGenerator orders = context.getBean(LeafIdGenerators.class).get("orders");
          for (int i = 0; i < 10; i++) {
            orders.next();
          }

          assertThat(
                  registry
                      .get("leaf.client.ids.served")
                      .tag("biz_tag", "orders")
                      .functionCounter()
                      .count())
              .as("IDs served")
              .isEqualTo(10);
          assertThat(registry.get("leaf.client.ids.left").tag("biz_tag", "orders").gauge().value())
              .as("IDs left of the reservation of 50")
              .isEqualTo(40);
          assertThat(
                  registry
                      .get("leaf.client.refills")
                      .tag("biz_tag", "orders")
                      .functionCounter()
                      .count())
              .as("reservations asked for")
              .isEqualTo(1);
          assertThat(
                  registry
                      .get("leaf.client.waits")
                      .tag("biz_tag", "orders")
                      .functionCounter()
                      .count())
              .as("waits, as the generator counts them")
              .isEqualTo(orders.waits());
          assertThat(
                  registry
                      .get("leaf.client.refill.failures")
                      .tag("biz_tag", "orders")
                      .functionCounter()
                      .count())
              .as("failed reservations")
              .isZero();
        });
  }

  @Test
  void meters_ofAGeneratorBuiltLater_countItsRefillFailures() {
    server.fail(Status.UNAVAILABLE.withDescription("database down"));
    runner.run(
        context -> {
          MeterRegistry registry = context.getBean(MeterRegistry.class);
          context.getBean(LeafIdGenerators.class).get("users");

          awaitAtLeast(
              "failed reservations of the tag first asked for after start",
              () ->
                  registry
                      .get("leaf.client.refill.failures")
                      .tag("biz_tag", "users")
                      .functionCounter()
                      .count(),
              1);
        });
  }

  @Test
  void metrics_withoutMicrometer_absent() {
    runner
        .withClassLoader(new FilteredClassLoader(MeterBinder.class))
        .run(
            context ->
                assertThat(context)
                    .as("without Micrometer")
                    .doesNotHaveBean(LeafIdGeneratorMetrics.class)
                    .hasSingleBean(LeafIdGenerators.class));
  }

  @Test
  void metrics_definedByTheApplication_kept() {
    try (LeafClient client = LeafClient.forTarget(server.target()).build();
        LeafIdGenerators generators = new LeafIdGenerators(client, Map.of(), 1)) {
      runner
          .withBean(
              "myMetrics",
              LeafIdGeneratorMetrics.class,
              () -> new LeafIdGeneratorMetrics(generators))
          .run(
              context ->
                  assertThat(context.getBean(LeafIdGeneratorMetrics.class))
                      .as("the application's binder")
                      .isSameAs(context.getBean("myMetrics")));
    }
  }
}
