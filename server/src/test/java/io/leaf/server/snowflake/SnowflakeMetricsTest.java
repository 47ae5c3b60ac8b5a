package io.leaf.server.snowflake;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.metrics.Metrics;
import io.leaf.server.testing.FakeTicker;
import io.leaf.server.testing.FakeWallClock;
import io.leaf.server.testing.ManualScheduler;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SnowflakeMetricsTest {

  @Test
  void scrape_snowflakeGauges_present() {
    FakeWallClock wall = new FakeWallClock(1_750_000_000_000L);
    FakeTicker ticker = new FakeTicker();
    try (Metrics metrics = new Metrics();
        Snowflake snowflake =
            new Snowflake(
                new MemoryWorkerLeaseStore(wall),
                SnowflakeLayout.DEFAULT,
                new Snowflake.Workers(0, 3, Duration.ofSeconds(30)),
                new Snowflake.Clocks(wall, ticker),
                new Snowflake.Threads(new ManualScheduler(ticker), new ManualScheduler(ticker)))) {
      metrics.watchSnowflake(snowflake);
      String text = metrics.scrape();
      for (String name :
          new String[] {
            "leaf_snowflake_epoch_years_left",
            "leaf_snowflake_ahead_of_wall_clock_ms",
            "leaf_snowflake_worker_id",
            "leaf_snowflake_lease_valid",
            "leaf_snowflake_borrow_refusals_total",
            "leaf_snowflake_discarded_floors_total",
            "leaf_snowflake_ids_issued_total"
          }) {
        assertTrue(text.contains(name), name + " in\n" + text);
      }
      assertTrue(
          snowflake.yearsLeft() > 50 && snowflake.yearsLeft() < 56,
          "2025 to 2080: " + snowflake.yearsLeft());
    }
  }
}
