package io.leaf.server.security;

/**
 * Where each token's IDs are counted: the metrics registry in production. {@link #forToken} is
 * asked once per token each time the token file is read, never per call.
 */
@FunctionalInterface
public interface TokenMeters {

  /** Counts nothing. */
  TokenMeters NONE = name -> Meter.NONE;

  /** The meter of the token called {@code name}. */
  Meter forToken(String name);

  /** One token's counts of IDs. Thread-safe. */
  interface Meter {

    /** Counts nothing. */
    Meter NONE =
        new Meter() {
          @Override
          public void granted(long ids) {}

          @Override
          public void refused(long ids) {}
        };

    /** {@code ids} IDs a call was allowed to take (the call may still fail for other reasons). */
    void granted(long ids);

    /** {@code ids} IDs a call asked for and was refused (out of scope or over the rate). */
    void refused(long ids);
  }
}
