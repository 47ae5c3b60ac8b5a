package io.leaf.server.formats;

import static io.leaf.server.testing.FormattedServer.format;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.leaf.server.testing.DatabaseKind;
import io.leaf.server.testing.FakeWallClock;
import io.leaf.server.testing.FormattedServer;
import io.leaf.server.testing.TestDatabase;
import io.leaf.v1.Reset;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A day's numbers of a two-digit sequence run out under unary and batch callers on two servers
 * sharing a database: every caller then gets OUT_OF_RANGE naming the tag, the period and the width;
 * no value is longer than the format or repeated; the next day starts again. A period issues nearly
 * all its numbers before that: a single caller every one of them.
 */
class WidthOverflowTest {

  private static final long NOW = Instant.parse("2026-11-26T10:00:00Z").toEpochMilli();
  private static final int CALLERS = 4;

  @ParameterizedTest(name = "{0}")
  @EnumSource(DatabaseKind.class)
  void twoDigitsExhausted_outOfRangeNamingTagPeriodWidth_neverLonger(DatabaseKind kind)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(CALLERS);
    try (TestDatabase db = kind.open();
        FormattedServer a = FormattedServer.start(db, new FakeWallClock(NOW), null);
        FormattedServer b = FormattedServer.start(db, new FakeWallClock(NOW), null)) {
      a.createTag("wide", 10, format("W{yyyyMMdd}{seq:2}", Reset.DAILY, ""));
      ConcurrentLinkedQueue<String> values = new ConcurrentLinkedQueue<>();
      ConcurrentLinkedQueue<Status> refusals = new ConcurrentLinkedQueue<>();
      List<Future<?>> callers = new ArrayList<>();
      for (int c = 0; c < CALLERS; c++) {
        FormattedServer s = c % 2 == 0 ? a : b;
        boolean batches = c >= 2;
        callers.add(
            pool.submit(
                () -> {
                  // Until refused twice in a row: the refusal stays once the width is passed.
                  for (int refused = 0; refused < 2; ) {
                    try {
                      values.addAll(batches ? s.batch("wide", 3) : List.of(s.next("wide")));
                      refused = 0;
                    } catch (StatusRuntimeException e) {
                      refusals.add(e.getStatus());
                      refused++;
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : callers) {
        f.get(2, TimeUnit.MINUTES);
      }
      Set<String> distinct = new HashSet<>(values);
      System.err.println(
          "[leaf-tests] width 2 exhausted on "
              + kind
              + ": "
              + values.size()
              + " values, "
              + (values.size() - distinct.size())
              + " repeats, "
              + refusals.size()
              + " refusals");
      assertEquals(values.size(), distinct.size(), "no repeats");
      assertTrue(values.stream().allMatch(v -> v.matches("W20261126\\d{2}")), values.toString());
      // A batch that crosses the width sends its numbers, then fails: batch() drops those (at most
      // 2 for each of the 2 batch callers); WidthEdgeBatchTest counts them.
      assertTrue(values.size() >= 95 && values.size() <= 99, values.size() + " values");
      for (Status s : refusals) {
        assertEquals(Status.Code.OUT_OF_RANGE, s.getCode(), s.toString());
        String m = s.getDescription();
        assertTrue(m.contains("\"wide\"") && m.contains("20261126") && m.contains("width of 2"), m);
      }
      a.clock.advance(Duration.ofDays(1));
      assertEquals("W2026112701", a.next("wide"));
    } finally {
      pool.shutdownNow();
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(DatabaseKind.class)
  void oneCaller_getsEveryNumberOfThePeriod_beforeOutOfRange(DatabaseKind kind) throws Exception {
    try (TestDatabase db = kind.open();
        FormattedServer s = FormattedServer.start(db, new FakeWallClock(NOW), null)) {
      for (int width : new int[] {2, 3, 4}) {
        String tag = "w" + width;
        s.createTag(tag, 10, format("{yyyyMMdd}{seq:" + width + "}", Reset.DAILY, ""));
        Set<String> values = new HashSet<>();
        StatusRuntimeException end = null;
        while (end == null) {
          try {
            assertTrue(values.add(s.next(tag)));
          } catch (StatusRuntimeException e) {
            end = e;
          }
        }
        long numbers = (long) Math.pow(10, width) - 1;
        System.err.println(
            "[leaf-tests] one caller, width "
                + width
                + " on "
                + kind
                + ": "
                + values.size()
                + " of "
                + numbers
                + " numbers, then "
                + end.getStatus().getCode());
        assertEquals(Status.Code.OUT_OF_RANGE, end.getStatus().getCode());
        // Loads that finish out of order must not leave numbers of the period unused.
        assertEquals(numbers, values.size(), "width " + width);
      }
    }
  }
}
