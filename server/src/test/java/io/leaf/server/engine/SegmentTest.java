package io.leaf.server.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The lock-free cursor of one segment: every ID at most once, nothing past the end, no wrap. */
class SegmentTest {

  @Test
  void take_wholeSegment_issuesEachIdOnceThenExhausted() {
    Segment s = new Segment(10, 15, 5);
    long[] ids = {s.take(), s.take(), s.take(), s.take(), s.take()};
    assertEquals("[10, 11, 12, 13, 14]", Arrays.toString(ids));
    assertEquals(Segment.EXHAUSTED, s.take(), "nothing past the end");
    assertTrue(s.isExhausted(), "exhausted");
    assertEquals(15, s.cursor(), "cursor clamped to the end");
  }

  @Test
  void takeRange_moreThanLeft_returnsOnlyWhatIsLeft() {
    Segment s = new Segment(0, 100, 100);
    assertEquals(0, s.takeRange(30), "first range starts at 0");
    assertEquals(30, s.takeRange(500), "second range starts where the first ended");
    assertEquals(100, s.cursor(), "the second took the remaining 70 only");
    assertEquals(Segment.EXHAUSTED, s.takeRange(1), "then nothing");
  }

  @Test
  void preloadAt_isTenPercentIn() {
    assertEquals(110, new Segment(100, 200, 100).preloadAt);
    assertEquals(5, new Segment(5, 8, 3).preloadAt, "a tiny segment preloads on its first ID");
  }

  @Test
  void claimPreload_manyCallers_exactlyOneWinsUntilRearmed() {
    Segment s = new Segment(0, 100, 100);
    assertTrue(s.claimPreload(), "first claim wins");
    assertFalse(s.claimPreload(), "second claim loses");
    s.rearmPreload();
    assertTrue(s.claimPreload(), "claim wins again after re-arming");
  }

  @Test
  void take_segmentEndingAtLongMax_lastIdIsMaxMinusOneAndNothingWraps() {
    Segment s = new Segment(Long.MAX_VALUE - 3, Long.MAX_VALUE, 3);
    assertEquals(Long.MAX_VALUE - 3, s.take());
    assertEquals(Long.MAX_VALUE - 2, s.takeRange(10));
    assertEquals(Segment.EXHAUSTED, s.take(), "exhausted at the top");
    assertEquals(Segment.EXHAUSTED, s.takeRange(Long.MAX_VALUE), "still exhausted");
    assertEquals(Long.MAX_VALUE, s.cursor(), "cursor clamped to the end");
  }

  /**
   * Racing callers of a segment at the very top of the range push the cursor past Long.MAX_VALUE;
   * it wraps to negative values, which must read as exhausted and never be added to (a negative
   * {@code end - cursor} would move it back over issued IDs).
   */
  @Test
  void takeAndTakeRange_racingAtLongMax_eachIdOnceAndNoneOutside() throws Exception {
    int threads = 4;
    int rounds = 1_000;
    long size = 64;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (int round = 0; round < rounds; round++) {
        Segment s = new Segment(Long.MAX_VALUE - size, Long.MAX_VALUE, (int) size);
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Future<long[]>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          int thread = t;
          results.add(
              pool.submit(
                  () -> {
                    long[] got = new long[(int) size * 2];
                    int n = 0;
                    start.await();
                    for (int i = 0; i < 200; i++) {
                      if (thread % 2 == 0) {
                        long id = s.take();
                        if (id != Segment.EXHAUSTED) {
                          got[n++] = id;
                        }
                      } else {
                        long first = s.takeRange(size / 4 + i % 7);
                        if (first != Segment.EXHAUSTED) {
                          long end = first + Math.min(size / 4 + i % 7, s.end - first);
                          for (long id = first; id < end; id++) {
                            got[n++] = id;
                          }
                        }
                      }
                    }
                    return Arrays.copyOf(got, n);
                  }));
        }
        long[] all = new long[0];
        for (Future<long[]> f : results) {
          long[] part = f.get(30, TimeUnit.SECONDS);
          long[] merged = Arrays.copyOf(all, all.length + part.length);
          System.arraycopy(part, 0, merged, all.length, part.length);
          all = merged;
        }
        Arrays.sort(all);
        assertEquals(size, all.length, "round " + round + ": every ID of the segment, once");
        for (int i = 0; i < all.length; i++) {
          assertEquals(Long.MAX_VALUE - size + i, all[i], "round " + round + ": ID " + i);
        }
        assertEquals(Segment.EXHAUSTED, s.take(), "round " + round + ": exhausted afterwards");
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
