package io.leaf.server.formats;

import static io.leaf.server.testing.FormattedServer.format;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A server whose wall clock goes back an hour, from after midnight to before it — restarted with
 * the clock behind, or stepped back while running — issues no value it issued before: the earlier
 * day's row hands out numbers it never handed out, and the day after continues in its row.
 */
class ClockBehindRestartTest {

  private static final long BEFORE_MIDNIGHT = Instant.parse("2026-11-26T23:30:00Z").toEpochMilli();
  private static final Duration HOUR = Duration.ofHours(1);
  private static final int PER_STEP = 300;

  @ParameterizedTest(name = "{0}")
  @EnumSource(DatabaseKind.class)
  void restartedWithTheClockAnHourBehind_noRepeats(DatabaseKind kind) throws Exception {
    List<String> first = new ArrayList<>();
    List<String> second = new ArrayList<>();
    try (TestDatabase db = kind.open()) {
      try (FormattedServer s =
          FormattedServer.start(db, new FakeWallClock(BEFORE_MIDNIGHT), null)) {
        s.createTag("late", 10, format("L{yyyyMMdd}{seq:6}", Reset.DAILY, ""));
        issue(s, first);
        s.clock.advance(HOUR);
        issue(s, first);
      }
      // Started again with the clock back before midnight, then across it once more.
      try (FormattedServer s =
          FormattedServer.start(db, new FakeWallClock(BEFORE_MIDNIGHT), null)) {
        issue(s, second);
        s.clock.advance(HOUR);
        issue(s, second);
      }
    }
    check("restart on " + kind, first, second);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(DatabaseKind.class)
  void clockSteppedBackAnHourWhileRunning_noRepeats(DatabaseKind kind) throws Exception {
    List<String> first = new ArrayList<>();
    List<String> second = new ArrayList<>();
    try (TestDatabase db = kind.open();
        FormattedServer s = FormattedServer.start(db, new FakeWallClock(BEFORE_MIDNIGHT), null)) {
      s.createTag("late", 10, format("L{yyyyMMdd}{seq:6}", Reset.DAILY, ""));
      issue(s, first);
      s.clock.advance(HOUR);
      issue(s, first);
      s.clock.advance(HOUR.negated());
      issue(s, second);
      s.clock.advance(HOUR);
      issue(s, second);
    }
    check("clock step on " + kind, first, second);
  }

  /** {@link #PER_STEP} values, unary and in batches, at the server's present time. */
  private static void issue(FormattedServer s, List<String> into) {
    int start = into.size();
    while (into.size() - start < PER_STEP) {
      into.add(s.next("late"));
      into.addAll(s.batch("late", 9));
    }
  }

  /** No repeats; each day's values after the clock went back lie above its values before. */
  private static void check(String what, List<String> first, List<String> second) {
    Set<String> all = new HashSet<>(first);
    int repeats = 0;
    for (String v : second) {
      if (!all.add(v)) {
        repeats++;
      }
    }
    System.err.println(
        "[leaf-tests] "
            + what
            + " with the clock an hour behind: "
            + (first.size() + second.size())
            + " values, "
            + repeats
            + " repeats");
    assertEquals(0, repeats);
    assertEquals(first.size() + second.size(), all.size());
    for (String day : List.of("L20261126", "L20261127")) {
      long highestBefore =
          first.stream()
              .filter(v -> v.startsWith(day))
              .mapToLong(v -> Long.parseLong(v.substring(9)))
              .max()
              .orElseThrow();
      long lowestAfter =
          second.stream()
              .filter(v -> v.startsWith(day))
              .mapToLong(v -> Long.parseLong(v.substring(9)))
              .min()
              .orElseThrow();
      assertTrue(lowestAfter > highestBefore, day + ": " + lowestAfter + " after " + highestBefore);
    }
  }
}
