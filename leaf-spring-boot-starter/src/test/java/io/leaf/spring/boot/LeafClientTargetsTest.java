package io.leaf.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.leaf.client.CachedIdGenerator;
import io.leaf.client.LeafClient;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * leaf.client.targets: the client prefers the first server and, once it stops, serves every call
 * from the next, the generators, formatted numbers and snowflake IDs included.
 */
class LeafClientTargetsTest {

  /** Where the second server's IDs start, so that each ID tells which server issued it. */
  private static final long SECOND = 1_000_000;

  @Test
  void targets_firstServerStopped_callsGoToTheNextAndHealthFollows() throws Exception {
    try (TestLeafServer first = new TestLeafServer();
        TestLeafServer second = new TestLeafServer().startAt(SECOND)) {
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  LeafClientAutoConfiguration.class, LeafHealthAutoConfiguration.class))
          // A stopped server refuses at once: failover-after only bounds a silent one (and a cold
          // JVM's first call may take a second or two).
          .withPropertyValues(
              "leaf.client.targets=" + first.target() + "," + second.target(),
              "leaf.client.failover-after=5s",
              "leaf.client.retry-preferred-after=1m",
              "leaf.client.deadline=10s",
              "leaf.client.generators.orders.min-block-size=10",
              "leaf.client.generators.orders.max-block-size=10")
          .run(
              context -> {
                assertThat(context).hasSingleBean(LeafClient.class);
                CachedIdGenerator orders = context.getBean(LeafIdGenerators.class).get("orders");
                LeafFormattedIds formatted = context.getBean(LeafFormattedIds.class);
                assertThat(orders.next()).as("an ID of the first server").isLessThan(SECOND);
                assertThat(formatted.next("invoices"))
                    .as("a number of the first server")
                    .doesNotStartWith("F-1000");
                assertThat(second.reserveCounts())
                    .as("the second server while the first serves")
                    .isEmpty();

                first.close();
                long last = 0;
                for (int i = 0; i < 25; i++) {
                  last = orders.next(); // the cached IDs of the first, then the second's
                }
                assertThat(last).as("an ID once the cache ran dry").isGreaterThanOrEqualTo(SECOND);
                assertThat(formatted.next("invoices"))
                    .as("a number once the first stopped")
                    .startsWith("F-100");
                assertThat(context.getBean(LeafSnowflakeIds.class).nextId())
                    .as("a snowflake ID")
                    .isPositive();
                Health health = context.getBean(LeafHealthIndicator.class).health();
                assertThat(health.getStatus())
                    .as("health of the server calls go to: " + health)
                    .isEqualTo(Status.UP);
              });
    }
  }
}
