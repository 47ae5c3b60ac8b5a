package io.leaf.server.snowflake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.engine.IdRanges;
import io.leaf.server.testing.FakeTicker;
import io.leaf.server.testing.FakeWallClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SequenceStartTest {

  private static final long NOW = 1_750_000_000_000L;
  private static final SnowflakeLayout LAYOUT = SnowflakeLayout.DEFAULT;

  private final FakeWallClock wall = new FakeWallClock(NOW);
  private final FakeTicker ticker = new FakeTicker();
  private final SnowflakeGenerator generator = new SnowflakeGenerator(LAYOUT, wall, ticker);

  private void lease(int worker) {
    generator.activate(
        worker,
        generator.prepare(0),
        NOW + Duration.ofDays(1).toMillis(),
        ticker.read() + Duration.ofDays(1).toNanos(),
        NOW + 60_000,
        "fenced");
  }

  @Test
  void next_fiftyPerSecond_idMod16WithinQuarterOfUniform() {
    lease(5);
    int[] shards = new int[16];
    int n = 1_600;
    for (int i = 0; i < n; i++) {
      wall.advance(Duration.ofMillis(20));
      ticker.advance(Duration.ofMillis(20));
      shards[(int) (generator.next() % 16)]++;
    }
    double expected = n / 16.0;
    for (int s = 0; s < 16; s++) {
      assertTrue(
          Math.abs(shards[s] - expected) <= 0.25 * expected,
          "shard "
              + s
              + " got "
              + shards[s]
              + " of "
              + n
              + " IDs; expected "
              + expected
              + " ± 25 %: "
              + java.util.Arrays.toString(shards));
    }
  }

  @Test
  void take_lowRateChunks_idMod16Spreads() {
    lease(5);
    int[] shards = new int[16];
    for (int i = 0; i < 320; i++) {
      wall.advance(Duration.ofMillis(20));
      ticker.advance(Duration.ofMillis(20));
      IdRanges ids = new IdRanges();
      generator.take(1, ids);
      ids.forEach(id -> shards[(int) (id % 16)]++);
    }
    for (int s = 0; s < 16; s++) {
      assertTrue(
          shards[s] >= 15 && shards[s] <= 25,
          "shard " + s + " got " + shards[s] + " of 320: " + java.util.Arrays.toString(shards));
    }
  }

  @Test
  void next_sequenceStartedAboveZeroFills_borrowsNextMillisecondAtZeroAndKeepsIncreasing() {
    lease(2);
    wall.advance(Duration.ofMillis(1));
    generator.next(); // this millisecond starts at 0
    wall.advance(Duration.ofMillis(1));
    long first = generator.next(); // the next one at 1
    assertEquals(1, LAYOUT.decompose(first).sequence(), "second millisecond starts at 1");
    long last = first;
    for (int i = 1; i < LAYOUT.idsPerMillisecond() - 1; i++) {
      long id = generator.next();
      assertTrue(id > last, "IDs increase within the millisecond");
      last = id;
    }
    assertEquals(LAYOUT.maxSequence(), LAYOUT.decompose(last).sequence(), "ran to the maximum");
    long borrowed = generator.next();
    SnowflakeLayout.Parts parts = LAYOUT.decompose(borrowed);
    assertEquals(
        LAYOUT.decompose(first).timestampMs() + 1,
        parts.timestampMs(),
        "a full sequence borrows the next millisecond, never wraps below its start");
    assertEquals(0, parts.sequence(), "a borrowed millisecond starts at 0");
  }

  @Test
  void window_layouts_powerOfTwoAtMostAQuarterOfTheSequence() {
    assertEquals(64, new SequenceStart(LAYOUT).window(), "default 12-bit sequence");
    assertEquals(32, new SequenceStart(new SnowflakeLayout(0, 41, 5, 7)).window(), "7 bits");
    assertEquals(1, new SequenceStart(new SnowflakeLayout(0, 41, 10, 1)).window(), "1 bit");
  }

  @Test
  void nextAndTake_concurrentCallersWhileClockMoves_noDuplicates() throws Exception {
    lease(9);
    int threads = 4;
    ConcurrentHashMap<Long, Boolean> seen = new ConcurrentHashMap<>();
    AtomicLong duplicates = new AtomicLong();
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> jobs = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        boolean batches = t % 2 == 0;
        jobs.add(
            pool.submit(
                () -> {
                  go.await();
                  for (int i = 0; i < 20_000; i++) {
                    if (i % 50 == 0) {
                      // The clock moves while others issue: new milliseconds start at spread
                      // values.
                      wall.advance(Duration.ofMillis(1));
                      ticker.advance(Duration.ofMillis(1));
                    }
                    if (batches && i % 10 == 0) {
                      IdRanges ids = new IdRanges();
                      generator.take(7, ids);
                      ids.forEach(
                          id -> {
                            if (seen.putIfAbsent(id, Boolean.TRUE) != null) {
                              duplicates.incrementAndGet();
                            }
                          });
                    } else {
                      try {
                        if (seen.putIfAbsent(generator.next(), Boolean.TRUE) != null) {
                          duplicates.incrementAndGet();
                        }
                      } catch (io.leaf.server.engine.LimitExceededException e) {
                        // Borrowed too far ahead of the fake clock: no ID, no duplicate.
                      }
                    }
                  }
                  return null;
                }));
      }
      go.countDown();
      for (Future<?> job : jobs) {
        job.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(0, duplicates.get(), "duplicate IDs among " + seen.size());
    assertTrue(seen.size() > 50_000, "enough IDs issued to mean something: " + seen.size());
  }
}
