package io.leaf.server.snowflake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.leaf.server.store.StoreUnavailableException;
import io.leaf.server.testing.FakeTicker;
import io.leaf.server.testing.FakeWallClock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.slf4j.LoggerFactory;

/** A lease table that keeps failing is told at most once a minute, not at every retry. */
@Isolated
class WorkerLeaseWarningsTest {

  private static final long NOW = 1_750_000_000_000L;

  private final FakeWallClock wall = new FakeWallClock(NOW);
  private final FakeTicker ticker = new FakeTicker();
  private final MemoryWorkerLeaseStore table = new MemoryWorkerLeaseStore(wall);
  private volatile boolean down = true;
  private final Logger keeperLog = (Logger) LoggerFactory.getLogger(WorkerLeaseKeeper.class);
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

  @BeforeEach
  void attach() {
    logged.start();
    keeperLog.addAppender(logged);
  }

  @AfterEach
  void detach() {
    keeperLog.detachAppender(logged);
  }

  @Test
  void step_claimFailingFiveMinutes_warnsOnceAMinuteThenAtOnceAfterRecovery() {
    WorkerLeaseKeeper keeper =
        new WorkerLeaseKeeper(
            store(),
            new SnowflakeGenerator(SnowflakeLayout.DEFAULT, wall, ticker),
            ticker,
            LeaseSettings.shared(0, 1023, Duration.ofSeconds(30)),
            "server-a");
    int steps = run(keeper, Duration.ofMinutes(5));
    List<String> warnings = warnings();
    assertTrue(steps >= 250, "the keeper retried about every second: " + steps + " steps");
    assertEquals(
        5,
        warnings.size(),
        "one warning a minute over five minutes of " + steps + " failed claims: " + warnings);
    assertTrue(
        warnings.get(1).contains("more like it since the last"),
        "a later line counts the ones held back: " + warnings.get(1));

    down = false;
    run(keeper, Duration.ofSeconds(2));
    down = true;
    logged.list.clear();
    run(keeper, Duration.ofSeconds(40));
    assertEquals(
        1, warnings().size(), "a new outage after a success is told at once: " + warnings());
  }

  /** Steps the keeper on the fake clocks for {@code total}; the number of steps taken. */
  private int run(WorkerLeaseKeeper keeper, Duration total) {
    long end = ticker.read() + total.toNanos();
    int steps = 0;
    while (ticker.read() - end < 0) {
      long next = keeper.step();
      steps++;
      Duration wait = Duration.ofNanos(Math.min(next, end - ticker.read()));
      ticker.advance(wait.isZero() ? Duration.ofMillis(1) : wait);
      wall.advance(wait);
    }
    return steps;
  }

  private List<String> warnings() {
    return logged.list.stream()
        .filter(e -> e.getLevel() == Level.WARN)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  private WorkerLeaseStore store() {
    return new WorkerLeaseStore() {
      private void reach() {
        if (down) {
          throw new StoreUnavailableException("database unreachable (test)", null);
        }
      }

      @Override
      public void createSchemaIfMissing() {}

      @Override
      public Optional<WorkerLease> claim(int fromId, int toId, String owner, Duration ttl) {
        reach();
        return table.claim(fromId, toId, owner, ttl);
      }

      @Override
      public Optional<WorkerLease> renew(
          int workerId, String owner, Duration ttl, long lastTimestampMs, long storedAtLeastMs) {
        reach();
        return table.renew(workerId, owner, ttl, lastTimestampMs, storedAtLeastMs);
      }

      @Override
      public void release(int workerId, String owner, long lastTimestampMs) {
        reach();
        table.release(workerId, owner, lastTimestampMs);
      }
    };
  }
}
