package io.leaf.server.metrics;

import io.leaf.server.snowflake.Snowflake;
import io.leaf.server.snowflake.SnowflakeGenerator;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/** The snowflake side's meters, all read when scraped: nothing is counted per ID. */
final class SnowflakeMeters {

  private SnowflakeMeters() {}

  static void register(MeterRegistry registry, Snowflake snowflake) {
    SnowflakeGenerator g = snowflake.generator();
    Gauge.builder("leaf.snowflake.epoch_years_left", snowflake, Snowflake::yearsLeft)
        .description(
            "years until the snowflake layout runs out (--snowflake-epoch,"
                + " --snowflake-bits); the server warns at start below 5")
        .register(registry);
    Gauge.builder("leaf.snowflake.ahead_of_wall_clock_ms", g, SnowflakeGenerator::aheadOfWallMs)
        .description(
            "how far the last snowflake ID's time runs ahead of the wall clock (after the clock"
                + " stepped back, or a worker taken over from a server whose time ran ahead)")
        .register(registry);
    Gauge.builder("leaf.snowflake.worker_id", g, SnowflakeGenerator::workerId)
        .description("the worker ID leased, -1 without a lease")
        .register(registry);
    Gauge.builder("leaf.snowflake.lease_valid", g, x -> x.leaseValid() ? 1 : 0)
        .description("1 while the worker lease is known valid (snowflake IDs are issued), else 0")
        .register(registry);
    FunctionCounter.builder("leaf.snowflake.ids_issued", g, SnowflakeGenerator::issued)
        .description("snowflake IDs issued by this server, unary and streamed")
        .register(registry);
    FunctionCounter.builder("leaf.snowflake.borrow_refusals", g, SnowflakeGenerator::borrowRefusals)
        .description(
            "snowflake calls refused because the sequence was used up the most it may"
                + " run ahead of the clock")
        .register(registry);
    FunctionCounter.builder(
            "leaf.snowflake.discarded_floors", snowflake, Snowflake::discardedFloors)
        .description(
            "stored worker timestamps discarded at claim time because they lay beyond"
                + " the layout's end (a clock glitch)")
        .register(registry);
  }
}
