package io.leaf.server.uuid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.snowflake.MemoryWorkerLeaseStore;
import io.leaf.server.snowflake.Snowflake;
import io.leaf.server.snowflake.SnowflakeLayout;
import io.leaf.server.testing.FakeWallClock;
import io.leaf.server.testing.ManualSnowflakeClocks;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three servers, two worker IDs, one lease table on fake clocks: one server's wall clock steps
 * back, then its lease row is deleted (an operator's DELETE) and the third server takes the worker
 * ID over. No UUID is shared and each server's UUIDs strictly increase.
 */
class UuidFleetTest {

  private static final long NOW = 1_750_000_000_000L;
  private static final Duration TTL = Duration.ofSeconds(3);
  private static final Duration TICK = Duration.ofMillis(10);

  private final FakeWallClock database = new FakeWallClock(NOW);
  private final MemoryWorkerLeaseStore store = new MemoryWorkerLeaseStore(database);
  private final List<ManualSnowflakeClocks> clocks = new ArrayList<>();
  private final List<Snowflake> snowflakes = new ArrayList<>();
  private final List<Uuids> servers = new ArrayList<>();
  private final List<List<UUID>> issued = new ArrayList<>();

  private void startServer() {
    ManualSnowflakeClocks c = new ManualSnowflakeClocks(NOW);
    Snowflake s =
        new Snowflake(
                store,
                SnowflakeLayout.DEFAULT,
                new Snowflake.Workers(0, 1, TTL),
                new Snowflake.Clocks(c.wall, c.ticker),
                new Snowflake.Threads(c.leaseSteps, c.timer))
            .start();
    clocks.add(c);
    snowflakes.add(s);
    servers.add(new Uuids(s, new SecureRandom()));
    issued.add(new ArrayList<>());
  }

  /** Every clock moves {@code d} in ticks; each server is asked for 20 UUIDs per tick. */
  private void run(Duration d) {
    for (long done = 0; done < d.toMillis(); done += TICK.toMillis()) {
      database.advance(TICK);
      for (int i = 0; i < servers.size(); i++) {
        clocks.get(i).elapse(TICK, true);
        for (int n = 0; n < 20; n++) {
          try {
            issued.get(i).add(servers.get(i).next());
          } catch (RuntimeException e) {
            // No lease (yet, or any more): no UUID.
            break;
          }
        }
      }
    }
  }

  @AfterEach
  void close() {
    snowflakes.forEach(Snowflake::close);
  }

  @Test
  void clockStepAndDeletedLeaseRow_noUuidSharedAndEachServerIncreasing() {
    for (int i = 0; i < 3; i++) {
      startServer();
    }
    run(Duration.ofSeconds(6));
    int idle = issued.get(0).isEmpty() ? 0 : issued.get(1).isEmpty() ? 1 : 2;
    int stepped = idle == 0 ? 1 : 0;
    int worker = snowflakes.get(stepped).generator().workerId();
    assertTrue(worker >= 0, "server " + stepped + " holds a worker ID");
    clocks.get(stepped).wall.set(clocks.get(stepped).wall.millis() - 30_000);
    run(Duration.ofSeconds(3));
    store.rewrite(worker, null);
    int before = issued.get(idle).size();
    run(Duration.ofSeconds(15));
    assertTrue(
        issued.get(idle).size() > before,
        "the idle server took a worker ID over and issued: " + issued.get(idle).size());
    Set<UUID> all = new HashSet<>();
    // Uniqueness by construction, random bits aside: timestamp, sequence and worker ID.
    Set<String> parts = new HashSet<>();
    UuidLayout layout = servers.get(0).layout();
    int total = 0;
    for (int i = 0; i < 3; i++) {
      List<UUID> mine = issued.get(i);
      total += mine.size();
      all.addAll(mine);
      for (UUID u : mine) {
        parts.add(u.getMostSignificantBits() + "/" + layout.decode(u).workerId());
      }
      for (int k = 1; k < mine.size(); k++) {
        assertTrue(
            mine.get(k - 1).toString().compareTo(mine.get(k).toString()) < 0,
            "server " + i + " increases: " + mine.get(k - 1) + " then " + mine.get(k));
      }
    }
    System.out.printf(
        "[uuid] fleet: %d UUIDs (%d, %d, %d), duplicates %d%n",
        total,
        issued.get(0).size(),
        issued.get(1).size(),
        issued.get(2).size(),
        total - all.size());
    assertEquals(total, all.size(), "no UUID shared among " + total);
    assertEquals(total, parts.size(), "no timestamp, sequence and worker ID shared either");
  }
}
