package io.leaf.server.config;

import io.leaf.server.snowflake.ClientLeases;
import io.leaf.server.snowflake.SnowflakeConfig;
import io.leaf.server.snowflake.SnowflakeLayout;
import java.time.Duration;

/**
 * The flags of snowflake IDs: the worker IDs this server and its clients lease and the layout of
 * the IDs; {@link Flags} lists them under their headings.
 */
final class SnowflakeFlags {
  static final Flag<String> WORKER_ID_RANGE =
      Flag.of(
          "worker-id-range",
          SnowflakeConfig.DEFAULT_RANGE,
          "snowflake worker IDs this server may lease, from-to"
              + " (e.g. 0-511 and 512-1023 in two sites)",
          Parsers.text());
  static final Flag<Duration> WORKER_LEASE_TTL =
      Flag.of(
          "worker-lease-ttl",
          SnowflakeConfig.DEFAULT_TTL,
          "a worker lease lives this long without renewal (renewed every third of it)",
          Parsers.duration());
  static final Flag<String> SNOWFLAKE_EPOCH =
      Flag.of(
          "snowflake-epoch",
          Long.toString(SnowflakeLayout.MEITUAN_EPOCH_MS),
          "timestamp 0 of snowflake IDs: epoch millis or ISO-8601 (default: Meituan Leaf's)",
          Parsers.text());
  static final Flag<Integer> MAX_CLIENT_LEASES =
      Flag.of(
          "max-client-leases",
          Integer.toString(ClientLeases.DEFAULT_MAX),
          "worker IDs clients may hold through this server at once to make snowflake IDs"
              + " themselves (LeaseWorker); 0: none",
          Parsers.integer(0, 100_000));
  static final Flag<String> SNOWFLAKE_BITS =
      Flag.of(
          "snowflake-bits",
          SnowflakeConfig.DEFAULT_BITS,
          "snowflake timestamp/worker/sequence bits, adding up to 63",
          Parsers.text());

  private SnowflakeFlags() {}
}
