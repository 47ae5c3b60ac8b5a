package io.leaf.server.formats;

import static io.leaf.server.testing.FormattedServer.format;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.testing.DatabaseKind;
import io.leaf.server.testing.FakeWallClock;
import io.leaf.server.testing.FormattedServer;
import io.leaf.server.testing.Pace;
import io.leaf.server.testing.SegmentLog;
import io.leaf.server.testing.TestDatabase;
import io.leaf.v1.Reset;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two servers on one database whose wall clocks differ by 2 s issue concurrently while midnight
 * (Asia/Shanghai) passes: no value repeats, every value shows the date of its server's clock at the
 * call, and its sequence was handed out by that date's row; for 2 s the two servers issue from
 * different days at once.
 */
@Tag("slow")
class SkewedClocksAcrossMidnightTest {

  private static final ZoneId ZONE = ZoneId.of("Asia/Shanghai");
  private static final DateTimeFormatter KEY = DateTimeFormatter.BASIC_ISO_DATE;
  private static final Pattern VALUE = Pattern.compile("SO-(\\d{8})-(\\d{7})");

  /** 2026-11-26 23:58:00 in Shanghai: before the next day's row is prepared. */
  private static final long FROM = Instant.parse("2026-11-26T15:58:00Z").toEpochMilli();

  private static final long MIDNIGHT = Instant.parse("2026-11-26T16:00:00Z").toEpochMilli();
  private static final long SKEW_MS = 2_000;
  private static final long SPAN_MS = 150_000;
  private static final long TICK_MS = 25;
  private static final int CALLERS_PER_SERVER = 3;

  /**
   * What one caller got: its values as numbers ({@code yyyyMMdd * 10^7 + sequence}, so millions
   * fit), counted by server and date, and the first values that broke a rule.
   */
  private static final class Tally {
    long[] codes = new long[1 << 14];
    int n;
    int apart;
    final Map<String, Integer> perServerAndDate = new HashMap<>();
    final List<String> broken = new ArrayList<>();

    /** One value from {@code server} whose clock read {@code at} before the call, then later. */
    void add(int server, String value, long at, String before, String after, SegmentLog log) {
      Matcher m = VALUE.matcher(value);
      String date = m.matches() ? m.group(1) : "";
      if (!date.equals(before) && !date.equals(after)) {
        broken.add(
            value + " from server " + server + " whose clock showed " + before + ".." + after);
      } else if (!log.handedOut("so#" + date, Long.parseLong(m.group(2)))) {
        broken.add(value + ": its sequence was not handed out by row so#" + date);
      }
      if (n == codes.length) {
        codes = Arrays.copyOf(codes, 2 * n);
      }
      codes[n++] =
          date.isEmpty() ? -1 : Long.parseLong(date) * 10_000_000L + Long.parseLong(m.group(2));
      perServerAndDate.merge(server + "@" + date, 1, Integer::sum);
      long sinceMidnight = at - MIDNIGHT;
      if (server == 0
          ? sinceMidnight >= -SKEW_MS && sinceMidnight < 0
          : sinceMidnight >= 0 && sinceMidnight < SKEW_MS) {
        apart++;
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(DatabaseKind.class)
  void twoServers2sApart_acrossMidnight_noRepeats_eachDateFromItsRow(DatabaseKind kind)
      throws Exception {
    SegmentLog log = new SegmentLog();
    ExecutorService pool = Executors.newFixedThreadPool(2 * CALLERS_PER_SERVER);
    try (TestDatabase db = kind.open();
        FormattedServer behind = FormattedServer.start(db, new FakeWallClock(FROM), log);
        FormattedServer ahead = FormattedServer.start(db, new FakeWallClock(FROM + SKEW_MS), log)) {
      behind.createTag("so", 20, format("SO-{yyyyMMdd}-{seq:7}", Reset.DAILY, ZONE.getId()));
      List<FormattedServer> servers = List.of(behind, ahead);
      AtomicBoolean stop = new AtomicBoolean();
      List<Future<Tally>> callers = new ArrayList<>();
      long started = System.nanoTime();
      for (int c = 0; c < 2 * CALLERS_PER_SERVER; c++) {
        int s = c % 2;
        boolean batches = c >= 2 * CALLERS_PER_SERVER - 2;
        FormattedServer server = servers.get(s);
        callers.add(
            pool.submit(
                () -> {
                  Tally t = new Tally();
                  while (!stop.get()) {
                    long at = server.clock.millis();
                    String before = date(at);
                    List<String> values =
                        batches ? server.batch("so", 7) : List.of(server.next("so"));
                    String after = date(server.clock.millis());
                    values.forEach(v -> t.add(s, v, at, before, after, log));
                  }
                  return t;
                }));
      }
      // Both clocks move on together, the skew constant, until both are well past midnight.
      for (long t = 0; t < SPAN_MS; t += TICK_MS) {
        behind.clock.set(FROM + t);
        ahead.clock.set(FROM + SKEW_MS + t);
        Pace.holdMillis(1); // deliberate: the clocks advance in real time too
      }
      stop.set(true);
      List<long[]> parts = new ArrayList<>();
      Map<String, Integer> perServerAndDate = new TreeMap<>();
      List<String> broken = new ArrayList<>();
      int apart = 0;
      for (Future<Tally> f : callers) {
        Tally t = f.get(1, TimeUnit.MINUTES);
        parts.add(Arrays.copyOf(t.codes, t.n));
        t.perServerAndDate.forEach((k, v) -> perServerAndDate.merge(k, v, Integer::sum));
        broken.addAll(t.broken);
        apart += t.apart;
      }
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      long[] all = parts.stream().flatMapToLong(Arrays::stream).sorted().toArray();
      int repeats = 0;
      for (int i = 1; i < all.length; i++) {
        repeats += all[i] == all[i - 1] ? 1 : 0;
      }
      System.err.println(
          "[leaf-tests] two servers 2 s apart across midnight on "
              + kind
              + ": "
              + all.length
              + " values in "
              + millis
              + " ms, "
              + repeats
              + " repeats, per"
              + " server@date "
              + perServerAndDate
              + ", "
              + apart
              + " while the servers' dates differed");
      assertEquals(List.of(), broken.subList(0, Math.min(10, broken.size())));
      assertEquals(0, repeats);
      assertEquals(
          Set.of("0@20261126", "0@20261127", "1@20261126", "1@20261127"),
          perServerAndDate.keySet());
      assertTrue(apart > 0, "values issued while one server was past midnight and one not");
    } finally {
      pool.shutdownNow();
    }
  }

  private static String date(long millis) {
    return KEY.format(Instant.ofEpochMilli(millis).atZone(ZONE).toLocalDate());
  }
}
