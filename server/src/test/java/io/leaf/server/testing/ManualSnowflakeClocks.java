package io.leaf.server.testing;

import java.time.Duration;

/**
 * The clocks and schedulers a {@code Snowflake} under test runs on, moved only by {@link #elapse}:
 * a wall clock, a monotonic ticker, the lease scheduler and the chunk timer.
 */
public final class ManualSnowflakeClocks {

  private static final Duration TICK = Duration.ofMillis(10);

  public final FakeWallClock wall;
  public final FakeTicker ticker = new FakeTicker();
  public final ManualScheduler leaseSteps = new ManualScheduler(ticker);
  public final ManualScheduler timer = new ManualScheduler(ticker);

  public ManualSnowflakeClocks(long wallMs) {
    this.wall = new FakeWallClock(wallMs);
  }

  /** Both clocks move {@code d} in 10 ms ticks; the timer always runs, the lease steps if asked. */
  public void elapse(Duration d, boolean leaseThreadRuns) {
    for (long done = 0; done < d.toMillis(); done += TICK.toMillis()) {
      wall.advance(TICK);
      ticker.advance(TICK);
      if (leaseThreadRuns) {
        leaseSteps.runDue();
      }
      timer.runDue();
    }
  }
}
