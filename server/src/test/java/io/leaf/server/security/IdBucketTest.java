package io.leaf.server.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.testing.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The per-token bucket on a ticker moved by hand: burst, refill, the wait it names, no drift. */
class IdBucketTest {

  private final FakeTicker ticker = new FakeTicker();

  @Test
  void take_fullBurstThenOneMore_waitIsOneIdsWorth() {
    IdBucket bucket = new IdBucket(new IdRate(1000, 5000), ticker);
    assertEquals(IdBucket.GRANTED, bucket.take(5000), "starts full");
    assertEquals(1_000_000, bucket.take(1), "one ID at 1000/s is 1 ms away");
    ticker.advance(Duration.ofNanos(999_999));
    assertEquals(1, bucket.take(1));
    ticker.advance(Duration.ofNanos(1));
    assertEquals(IdBucket.GRANTED, bucket.take(1));
  }

  @Test
  void take_refusedCall_takesNothing() {
    IdBucket bucket = new IdBucket(new IdRate(100, 100), ticker);
    assertEquals(IdBucket.GRANTED, bucket.take(60));
    assertEquals(200_000_000, bucket.take(60), "20 IDs short: 200 ms at 100/s");
    assertEquals(IdBucket.GRANTED, bucket.take(40), "the refusal left the 40 in the bucket");
  }

  @Test
  void take_moreThanBurst_never() {
    IdBucket bucket = new IdBucket(new IdRate(100, 1000), ticker);
    assertEquals(IdBucket.NEVER, bucket.take(1001));
    assertEquals(IdBucket.GRANTED, bucket.take(1000));
  }

  @Test
  void take_quietSpell_refillsToBurstNotBeyond() {
    IdBucket bucket = new IdBucket(new IdRate(10, 20), ticker);
    assertEquals(IdBucket.GRANTED, bucket.take(20));
    ticker.advance(Duration.ofHours(1));
    assertEquals(IdBucket.GRANTED, bucket.take(20));
    assertTrue(bucket.take(1) > 0, "an hour of quiet is still only the burst");
  }

  @Test
  void take_steadyCallsOverLongRun_grantExactlyTheRate() {
    // 3/s does not divide a second evenly: rounding must not let more through over time.
    IdBucket bucket = new IdBucket(new IdRate(3, 3), ticker);
    long granted = 0;
    for (int ms = 0; ms < 100_000; ms++) {
      if (bucket.take(1) == IdBucket.GRANTED) {
        granted++;
      }
      ticker.advance(Duration.ofMillis(1));
    }
    assertTrue(granted >= 300 && granted <= 303, "100 s at 3/s plus the burst: " + granted);
  }

  @Test
  void take_manyThreads_neverMoreThanTheBurst() throws Exception {
    IdBucket bucket = new IdBucket(new IdRate(1, 10_000), ticker);
    AtomicLong granted = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      Thread thread =
          new Thread(
              () -> {
                for (int i = 0; i < 10_000; i++) {
                  if (bucket.take(1) == IdBucket.GRANTED) {
                    granted.incrementAndGet();
                  }
                }
              });
      thread.start();
      threads.add(thread);
    }
    for (Thread t : threads) {
      t.join();
    }
    assertEquals(10_000, granted.get(), "the ticker stood still: exactly the burst");
  }
}
