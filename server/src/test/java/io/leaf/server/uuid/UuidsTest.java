package io.leaf.server.uuid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.snowflake.MemoryWorkerLeaseStore;
import io.leaf.server.snowflake.NoWorkerLeaseException;
import io.leaf.server.snowflake.Snowflake;
import io.leaf.server.snowflake.SnowflakeLayout;
import io.leaf.server.testing.ManualSnowflakeClocks;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** UUIDs through a real {@link Snowflake} (lease keeper, floor) on fake clocks and schedulers. */
class UuidsTest {

  private static final long NOW = 1_750_000_000_000L;
  private static final Duration TTL = Duration.ofSeconds(3);

  /** Past a claim's quarantine (the TTL plus 1 s). */
  private static final Duration LEASED = TTL.plusSeconds(2);

  private final ManualSnowflakeClocks clocks = new ManualSnowflakeClocks(NOW);
  private final MemoryWorkerLeaseStore store = new MemoryWorkerLeaseStore(clocks.wall);
  private final List<Snowflake> open = new ArrayList<>();

  private Snowflake snowflake(ManualSnowflakeClocks c, int fromId, int toId) {
    Snowflake s =
        new Snowflake(
                store,
                SnowflakeLayout.DEFAULT,
                new Snowflake.Workers(fromId, toId, TTL),
                new Snowflake.Clocks(c.wall, c.ticker),
                new Snowflake.Threads(c.leaseSteps, c.timer))
            .start();
    open.add(s);
    return s;
  }

  @AfterEach
  void close() {
    open.forEach(Snowflake::close);
  }

  @Test
  void next_withoutLease_refusesAsSnowflakeIdsDo() {
    Uuids uuids = new Uuids(snowflake(clocks, 7, 7), new SecureRandom());
    assertThrows(NoWorkerLeaseException.class, uuids::next, "quarantined: no UUID either");
  }

  @Test
  void next_concurrentCallers_uniqueAndEachCallersValuesStrictlyIncrease() throws Exception {
    Uuids uuids = new Uuids(snowflake(clocks, 7, 7), new SecureRandom());
    clocks.elapse(LEASED, true);
    int threads = 4;
    int each = 20_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<List<UUID>>> jobs = new ArrayList<>();
    try {
      for (int t = 0; t < threads; t++) {
        jobs.add(
            pool.submit(
                () -> {
                  go.await();
                  List<UUID> mine = new ArrayList<>(each);
                  while (mine.size() < each) {
                    try {
                      mine.add(uuids.next());
                    } catch (io.leaf.server.engine.LimitExceededException e) {
                      // The sequence borrowed a second ahead of the fake clock: let it move.
                      synchronized (clocks) {
                        clocks.elapse(Duration.ofMillis(10), true);
                      }
                    }
                  }
                  return mine;
                }));
      }
      go.countDown();
      Set<UUID> all = new HashSet<>();
      for (Future<List<UUID>> job : jobs) {
        List<UUID> mine = job.get(60, TimeUnit.SECONDS);
        for (int i = 1; i < mine.size(); i++) {
          assertTrue(
              mine.get(i - 1).toString().compareTo(mine.get(i).toString()) < 0,
              "a caller's UUIDs strictly increase: " + mine.get(i - 1) + " then " + mine.get(i));
        }
        all.addAll(mine);
      }
      assertEquals(threads * each, all.size(), "duplicates among " + threads * each);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void nextAndBatch_mixed_oneStrictlyIncreasingRunOfThisWorker() {
    Uuids uuids = new Uuids(snowflake(clocks, 7, 7), new SecureRandom());
    clocks.elapse(LEASED, true);
    List<UUID> seen = new ArrayList<>();
    for (int round = 0; round < 50; round++) {
      seen.add(uuids.next());
      CompletableFuture<List<UUID>> chunk = uuids.next(500);
      assertTrue(chunk.isDone(), "the sequence has 500 free");
      seen.addAll(chunk.join());
      clocks.elapse(Duration.ofMillis(10), true);
    }
    for (int i = 1; i < seen.size(); i++) {
      assertTrue(
          seen.get(i - 1).toString().compareTo(seen.get(i).toString()) < 0,
          "strictly increasing at " + i + ": " + seen.get(i - 1) + " then " + seen.get(i));
      assertEquals(7, uuids.layout().decode(seen.get(i)).workerId(), "this server's worker");
    }
  }

  @Test
  void next_twoServersOnOneStore_neverShareAValue() {
    Uuids a = new Uuids(snowflake(clocks, 0, 1), new SecureRandom());
    ManualSnowflakeClocks other = new ManualSnowflakeClocks(NOW);
    Uuids b = new Uuids(snowflake(other, 0, 1), new SecureRandom());
    clocks.elapse(LEASED, true);
    other.elapse(LEASED, true);
    Set<UUID> seen = new HashSet<>();
    Set<Integer> workers = new HashSet<>();
    for (int i = 0; i < 100_000; i++) {
      UUID ua = a.next();
      UUID ub = b.next();
      workers.add(a.layout().decode(ua).workerId());
      workers.add(b.layout().decode(ub).workerId());
      assertTrue(seen.add(ua) && seen.add(ub), "shared value at " + i);
      if (i % 1000 == 0) {
        clocks.elapse(Duration.ofMillis(10), true);
        other.elapse(Duration.ofMillis(10), true);
      }
    }
    assertEquals(Set.of(0, 1), workers, "each server its own worker ID");
  }

  @Test
  void next_wallClockStepsBack_neverRepeatsAndKeepsIncreasing() {
    Uuids uuids = new Uuids(snowflake(clocks, 7, 7), new SecureRandom());
    clocks.elapse(LEASED, true);
    UUID before = null;
    for (int i = 0; i < 1000; i++) {
      before = uuids.next();
    }
    clocks.wall.set(clocks.wall.millis() - 30_000);
    Set<UUID> after = new HashSet<>();
    UUID last = before;
    for (int i = 0; i < 10_000; i++) {
      UUID u = uuids.next();
      assertTrue(
          last.toString().compareTo(u.toString()) < 0,
          "increasing after the step back: " + last + " then " + u);
      assertTrue(after.add(u), "no repeat");
      last = u;
      if (i % 100 == 0) {
        clocks.elapse(Duration.ofMillis(10), true);
      }
    }
  }

  @Test
  void next_restartWithClockSetBack_startsAboveThePersistedFloor() {
    Snowflake first = snowflake(clocks, 7, 7);
    Uuids uuids = new Uuids(first, new SecureRandom());
    clocks.elapse(LEASED, true);
    UUID last = null;
    for (int i = 0; i < 1000; i++) {
      last = uuids.next();
    }
    first.close();
    // The same worker ID, on a machine whose clock is an hour behind.
    ManualSnowflakeClocks behind = new ManualSnowflakeClocks(NOW - 3_600_000);
    Uuids again = new Uuids(snowflake(behind, 7, 7), new SecureRandom());
    behind.elapse(LEASED, true);
    UUID next = again.next();
    assertEquals(7, again.layout().decode(next).workerId(), "the same worker ID again");
    assertTrue(
        last.toString().compareTo(next.toString()) < 0,
        "above the last holder's floor: " + last + " then " + next);
  }

  @Test
  void next_acrossPoolRefills_randomBitsNeverRepeat() {
    Uuids uuids = new Uuids(snowflake(clocks, 7, 7), new SecureRandom());
    clocks.elapse(LEASED, true);
    Set<Long> randomParts = new HashSet<>();
    for (int i = 0; i < 2_000; i++) {
      long lsb = uuids.next().getLeastSignificantBits() & ((1L << 52) - 1);
      assertTrue(randomParts.add(lsb), "random bits of UUID " + i + " seen before");
    }
  }

  @Test
  void decode_canonicalAndUlid_sameParts() {
    Uuids uuids = new Uuids(snowflake(clocks, 7, 7), new SecureRandom());
    clocks.elapse(LEASED, true);
    UUID u = uuids.next();
    UuidLayout.Parts parts = uuids.decode(u.toString());
    assertEquals(7, parts.workerId(), "worker");
    assertEquals(clocks.wall.millis(), parts.timestampMs(), "timestamp: the wall clock now");
    assertEquals(parts, uuids.decode(Ulid.encode(u)), "the ULID carries the same bits");
    assertThrows(IllegalArgumentException.class, () -> uuids.decode("not-a-uuid"));
  }
}
