package io.leaf.server.snowflake;

/**
 * Thrown instead of an ID whose time lies past what the layout's timestamp bits can hold, so no ID
 * ever wraps.
 *
 * <p>Nothing is issued. Maps to OUT_OF_RANGE.
 */
public final class EpochExhaustedException extends RuntimeException {
  public EpochExhaustedException(SnowflakeLayout layout) {
    super(
        "the snowflake layout ran out of time: " + layout + "; set a later --snowflake-epoch",
        null,
        false,
        false);
  }
}
