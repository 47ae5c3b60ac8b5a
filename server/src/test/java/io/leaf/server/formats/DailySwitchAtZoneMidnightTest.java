package io.leaf.server.formats;

import static io.leaf.server.testing.FormattedServer.format;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.testing.DatabaseKind;
import io.leaf.server.testing.FakeWallClock;
import io.leaf.server.testing.FormattedServer;
import io.leaf.server.testing.SegmentLog;
import io.leaf.server.testing.TestDatabase;
import io.leaf.v1.Reset;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A DAILY format in Europe/Berlin switches rows at the zone's midnight, also on the 23-hour and the
 * 25-hour day of 2026's DST changes: every value shows the zone's date of the instant it was issued
 * at, and its sequence was handed out by that date's row, which starts again at 1.
 */
class DailySwitchAtZoneMidnightTest {

  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
  private static final Pattern VALUE = Pattern.compile("B(\\d{8})-(\\d{6})");
  private static final DateTimeFormatter KEY = DateTimeFormatter.BASIC_ISO_DATE;

  @ParameterizedTest(name = "{0}")
  @EnumSource(DatabaseKind.class)
  void springForward_2026_03_29_23Hours(DatabaseKind kind) throws Exception {
    run(kind, LocalDate.of(2026, 3, 29), Duration.ofHours(23));
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(DatabaseKind.class)
  void fallBack_2026_10_25_25Hours(DatabaseKind kind) throws Exception {
    run(kind, LocalDate.of(2026, 10, 25), Duration.ofHours(25));
  }

  /** Walks the clock from the evening before {@code day} to the morning after, issuing. */
  private static void run(DatabaseKind kind, LocalDate day, Duration length) throws Exception {
    Instant start = day.atStartOfDay(BERLIN).toInstant();
    Instant end = day.plusDays(1).atStartOfDay(BERLIN).toInstant();
    assertEquals(length, Duration.between(start, end), "the day of the DST change");
    List<Instant> instants = new ArrayList<>();
    for (Instant t = start.minus(Duration.ofHours(3));
        t.isBefore(end.plus(Duration.ofHours(3)));
        t = t.plus(Duration.ofMinutes(7))) {
      instants.add(t);
    }
    for (Instant boundary :
        List.of(start, end, start.plus(Duration.ofHours(2)), start.plus(Duration.ofHours(3)))) {
      for (long ms : new long[] {-90_000, -1, 0, 1}) {
        instants.add(boundary.plusMillis(ms));
      }
    }
    instants.sort(null);

    SegmentLog log = new SegmentLog();
    try (TestDatabase db = kind.open();
        FormattedServer server = FormattedServer.start(db, new FakeWallClock(0), log)) {
      server.clock.set(instants.get(0).toEpochMilli());
      server.createTag("berlin", 5, format("B{yyyyMMdd}-{seq:6}", Reset.DAILY, "Europe/Berlin"));
      Map<String, TreeSet<Long>> byDate = new TreeMap<>();
      int issued = 0;
      for (Instant t : instants) {
        server.clock.set(t.toEpochMilli());
        List<String> values = new ArrayList<>(server.batch("berlin", 3));
        values.add(server.next("berlin"));
        String expected = KEY.format(t.atZone(BERLIN).toLocalDate());
        for (String v : values) {
          Matcher m = VALUE.matcher(v);
          assertTrue(m.matches(), v);
          assertEquals(expected, m.group(1), v + " issued at " + t);
          long seq = Long.parseLong(m.group(2));
          assertTrue(
              log.handedOut("berlin#" + m.group(1), seq),
              v + ": its sequence came from row berlin#" + m.group(1));
          assertTrue(
              byDate.computeIfAbsent(m.group(1), k -> new TreeSet<>()).add(seq), "repeated " + v);
          issued++;
        }
      }
      assertEquals(
          List.of(KEY.format(day.minusDays(1)), KEY.format(day), KEY.format(day.plusDays(1))),
          List.copyOf(byDate.keySet()));
      // One server issuing in turn: each day's row gave 1, 2, 3, ... and nothing else.
      byDate.forEach(
          (date, seqs) ->
              assertEquals(
                  LongStream.rangeClosed(1, seqs.size()).boxed().toList(),
                  List.copyOf(seqs),
                  date));
      System.err.println(
          "[leaf-tests] DAILY Europe/Berlin around "
              + day
              + " on "
              + kind
              + ": "
              + issued
              + " values at "
              + instants.size()
              + " instants, per day "
              + byDate.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue().size()).toList()
              + ", 0 repeats");
    }
  }
}
