package io.leaf.server.metrics;

import io.leaf.server.security.TokenMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * IDs per token ({@code leaf.token.ids}): what each caller took and what its scope or its rate
 * refused. Cost per call: one counter add.
 *
 * <p>Tags: {@code token} is the token's NAME and {@code outcome} is {@code granted} or {@code
 * refused}. One series pair per token of the token file (bounded by its size); both exist from the
 * moment the token is read, at zero.
 */
final class TokenCounters implements TokenMeters {

  static final String NAME = "leaf.token.ids";

  private final MeterRegistry registry;

  TokenCounters(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public Meter forToken(String name) {
    Counter granted = counter(name, "granted");
    Counter refused = counter(name, "refused");
    return new Meter() {
      @Override
      public void granted(long ids) {
        granted.increment(ids);
      }

      @Override
      public void refused(long ids) {
        refused.increment(ids);
      }
    };
  }

  private Counter counter(String token, String outcome) {
    return Counter.builder(NAME)
        .description(
            "IDs callers asked for, by token: granted (the call may still fail for"
                + " another reason) or refused by the token's scope or rate")
        .tag("token", token)
        .tag("outcome", outcome)
        .register(registry);
  }
}
