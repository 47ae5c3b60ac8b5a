package io.leaf.server.snowflake;

/**
 * The time to put in an ID lies past what the layout's timestamp bits can hold: nothing is issued,
 * nothing wraps. Maps to OUT_OF_RANGE.
 */
public final class EpochExhaustedException extends RuntimeException {
  public EpochExhaustedException(SnowflakeLayout layout) {
    super("the snowflake layout ran out of time: " + layout + "; set a later --snowflake-epoch",
        null, false, false);
  }
}
