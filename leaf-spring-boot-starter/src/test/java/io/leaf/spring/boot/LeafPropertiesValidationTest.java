package io.leaf.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Bad leaf.client.* values fail the application context with a message naming the property. */
class LeafPropertiesValidationTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(LeafClientAutoConfiguration.class));

  /** The messages of the failure and all its causes, one per line. */
  private static String messages(Throwable t) {
    StringBuilder sb = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      sb.append(c.getMessage()).append('\n');
    }
    return sb.toString();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "leaf.client.target=           | leaf.client.target must not be empty",
        "leaf.client.deadline=0s       | leaf.client.deadline must be positive, got PT0S",
        "leaf.client.deadline=soon     | 'leaf.client.deadline'",
        "leaf.client.health-timeout=-1s | leaf.client.health-timeout must be positive",
        "leaf.client.max-attempts=6    | leaf.client.max-attempts must be between 1 and 5, got 6",
        "leaf.client.failover-after=0s | leaf.client.failover-after must be positive, got PT0S",
        "leaf.client.retry-preferred-after=-1s | leaf.client.retry-preferred-after must be"
            + " positive",
        "leaf.client.max-generators=0  | leaf.client.max-generators must be at least 1",
        "leaf.client.token-file=/nonexistent/leaf-token | leaf.client.token-file cannot be read:"
            + " /nonexistent/leaf-token",
        "leaf.client.tls.trust-certificate=/etc/hostname | leaf.client.tls.trust-certificate is set"
            + " but leaf.client.tls.enabled is false",
        "leaf.client.generators.orders.min-block-size=0 |"
            + " leaf.client.generators.orders.min-block-size must be at least 1, got 0",
        "leaf.client.generators.orders.max-block-size=20000000 |"
            + " leaf.client.generators.orders.max-block-size must be at most 10000000, got"
            + " 20000000",
        "leaf.client.generators.orders.refill-threshold=1 |"
            + " leaf.client.generators.orders.refill-threshold must be in [0, 1), got 1.0",
        "leaf.client.generators.orders.max-wait=0ms | leaf.client.generators.orders.max-wait must"
            + " be positive",
        "leaf.client.generators.orders.target-refill-interval=-5s |"
            + " leaf.client.generators.orders.target-refill-interval must be positive",
      })
  void context_withBadProperty_failsNamingIt(String property, String expected) {
    runner
        .withPropertyValues(property)
        .run(
            context -> {
              assertThat(context).as(property).hasFailed();
              assertThat(messages(context.getStartupFailure()))
                  .as("why " + property + " failed")
                  .contains(expected);
            });
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "leaf.client.generators.orders.min-block-size=500 |"
            + " leaf.client.generators.orders.max-block-size=100 |"
            + " leaf.client.generators.orders.min-block-size must be at most"
            + " leaf.client.generators.orders.max-block-size (100), got 500",
        "leaf.client.token=abc | leaf.client.token-file=/etc/hostname | leaf.client.token and"
            + " leaf.client.token-file are both set",
        "leaf.client.target=leaf.fra:50051 | leaf.client.targets=leaf.fra:50051,leaf.sin:50051 |"
            + " leaf.client.target and leaf.client.targets are both set",
        "leaf.client.targets[0]=leaf.fra:50051 | leaf.client.targets[1]= | leaf.client.targets[1]"
            + " must not be empty",
        "leaf.client.tls.enabled=true | leaf.client.tls.certificate=/etc/hostname |"
            + " leaf.client.tls.private-key must be set with leaf.client.tls.certificate",
      })
  void context_withPropertiesThatConflict_failsNamingThem(
      String first, String second, String expected) {
    runner
        .withPropertyValues(first, second)
        .run(
            context -> {
              assertThat(context).as(first + ", " + second).hasFailed();
              assertThat(messages(context.getStartupFailure()))
                  .as("why it failed")
                  .contains(expected);
            });
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {"has space", "tab\tinside"})
  void context_withUnprintableToken_failsWithoutShowingIt(String token) {
    runner
        .withPropertyValues("leaf.client.token=" + token)
        .run(
            context -> {
              assertThat(context).hasFailed();
              String why = messages(context.getStartupFailure());
              assertThat(why)
                  .as("why it failed")
                  .contains("leaf.client.token must be printable ASCII without spaces")
                  .doesNotContain(token);
            });
  }
}
