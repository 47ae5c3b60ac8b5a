package io.leaf.server.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Tests of {@link TimingWheel}, driven by a fake clock: plain nanosecond values passed in. */
class TimingWheelTest {

  private static final long TICK = 1_000_000L;
  private static final int SLOTS = 8;
  private static final long START = 5_000_000_000L;

  private final TimingWheel<String> wheel = new TimingWheel<>(TICK, SLOTS, START);
  private final List<String> fired = new ArrayList<>();

  /** The time of tick boundary {@code n} of {@link #wheel}. */
  private static long boundary(long n) {
    return START + n * TICK;
  }

  private int advanceTo(long nowNanos) {
    return wheel.advance(nowNanos, fired::add);
  }

  /** Advances one tick at a time and returns, for each key, the boundary at which it fired. */
  private Map<String, Long> advanceTickByTick(long fromTick, long toTick) {
    Map<String, Long> firedAt = new HashMap<>();
    for (long n = fromTick; n <= toTick; n++) {
      long tick = n;
      wheel.advance(
          boundary(n), key -> assertNull(firedAt.put(key, tick), key + " must fire only once"));
    }
    return firedAt;
  }

  @ParameterizedTest
  @ValueSource(longs = {0, -1, Long.MIN_VALUE})
  void constructor_tickNanosNotPositive_throwsNamingValue(long tickNanos) {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> new TimingWheel<String>(tickNanos, SLOTS, 0));
    assertEquals(
        "tickNanos must be greater than 0: " + tickNanos, e.getMessage(), "message names value");
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -3, Integer.MIN_VALUE})
  void constructor_slotsNotPositive_throwsNamingValue(int slots) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new TimingWheel<String>(TICK, slots, 0));
    assertEquals("slots must be greater than 0: " + slots, e.getMessage(), "message names value");
  }

  @Test
  void constructor_validArguments_exposesTickAndSlotCountAndIsEmpty() {
    assertEquals(TICK, wheel.tickNanos(), "tickNanos");
    assertEquals(SLOTS, wheel.slotCount(), "slotCount");
    assertEquals(0, wheel.size(), "a new wheel is empty");
    assertEquals(0, advanceTo(boundary(100)), "an empty wheel fires nothing");
  }

  @Test
  void schedule_nullKey_throwsNullPointerException() {
    assertThrows(NullPointerException.class, () -> wheel.schedule(null, boundary(1)));
    assertEquals(0, wheel.size(), "nothing was scheduled");
  }

  @Test
  void advance_deadlineOnTickBoundary_firesAtThatBoundaryNotBefore() {
    wheel.schedule("a", boundary(3));

    assertEquals(0, advanceTo(boundary(3) - 1), "one nanosecond early must not fire");
    assertTrue(wheel.contains("a"), "still scheduled just before its deadline");
    assertEquals(1, advanceTo(boundary(3)), "fires exactly at its boundary");
    assertEquals(List.of("a"), fired, "fired key");
    assertFalse(wheel.contains("a"), "a fired key leaves the wheel");
  }

  @Test
  void advance_deadlineBetweenBoundaries_firesAtNextBoundary() {
    wheel.schedule("a", boundary(2) + 1);

    assertEquals(0, advanceTo(boundary(2)), "the boundary before the deadline must not fire");
    assertEquals(0, advanceTo(boundary(3) - 1), "the deadline alone does not fire between ticks");
    assertEquals(1, advanceTo(boundary(3)), "fires at the first boundary after the deadline");
  }

  @Test
  void advance_delayShorterThanTick_firesAtNextTick() {
    long now = boundary(5) + TICK / 2;
    advanceTo(now);
    wheel.schedule("a", now + 1);

    assertEquals(0, advanceTo(boundary(6) - 1), "not before the next boundary");
    assertEquals(1, advanceTo(boundary(6)), "fires at the next boundary");
  }

  @Test
  void advance_deadlineInPastOrNow_firesOnNextTickBoundary() {
    advanceTo(boundary(4));
    wheel.schedule("past", boundary(1));
    wheel.schedule("now", boundary(4));
    wheel.schedule("beforeStart", START - 10 * TICK);

    assertEquals(0, advanceTo(boundary(5) - 1), "the processed boundary cannot fire again");
    assertEquals(3, advanceTo(boundary(5)), "overdue keys fire at the next boundary");
    assertEquals(List.of("past", "now", "beforeStart"), fired, "in schedule order");
  }

  @Test
  void advance_delayOfThreeAndAHalfTurns_waitsForItsCircles() {
    // 3.5 turns of 8 slots is 28 ticks; its slot (28 % 8 = 4) is visited at ticks 4, 12 and 20
    // first, and each of those visits must only count down a circle.
    wheel.schedule("a", boundary(28));
    wheel.schedule("b", boundary(27) + 1);

    Map<String, Long> firedAt = advanceTickByTick(1, 40);

    assertEquals(Map.of("a", 28L, "b", 28L), firedAt, "both fire at tick 28, not before");
  }

  @Test
  void advance_manyKeysInOneSlotWithDifferentCircles_firesEachOnItsOwnTurn() {
    wheel.schedule("c2", boundary(3 + 2 * SLOTS));
    wheel.schedule("c0", boundary(3));
    wheel.schedule("c1", boundary(3 + SLOTS));
    wheel.schedule("c0bis", boundary(3) - TICK / 2);
    wheel.schedule("c5", boundary(3 + 5 * SLOTS));

    Map<String, Long> firedAt = advanceTickByTick(1, 6 * SLOTS);

    assertEquals(
        Map.of("c0", 3L, "c0bis", 3L, "c1", 11L, "c2", 19L, "c5", 43L),
        firedAt,
        "each key of slot 3 fires on its own turn");
  }

  @Test
  void advance_thousandKeysInOneSlot_firesEachAtItsOwnTickAndNoneEarly() {
    // Key i is due at tick 5 + (i % 4) * SLOTS: all thousand share slot 5, over four turns.
    for (int i = 0; i < 1_000; i++) {
      wheel.schedule("k" + i, boundary(5 + (i % 4) * SLOTS));
    }

    Map<String, Long> firedAt = advanceTickByTick(1, 5 + 4 * SLOTS);

    assertEquals(1_000, firedAt.size(), "every key fires exactly once");
    for (int i = 0; i < 1_000; i++) {
      assertEquals(5L + (i % 4) * SLOTS, firedAt.get("k" + i), "tick of key k" + i);
    }
    assertEquals(0, wheel.size(), "the slot is empty afterwards");
  }

  @Test
  void schedule_existingKeyEarlier_movesDeadlineEarlier() {
    wheel.schedule("a", boundary(30));
    wheel.schedule("a", boundary(2));

    assertEquals(1, wheel.size(), "moving does not add a key");
    Map<String, Long> firedAt = advanceTickByTick(1, 40);
    assertEquals(Map.of("a", 2L), firedAt, "fires once, at the new deadline");
  }

  @Test
  void schedule_existingKeyLater_movesDeadlineLater() {
    wheel.schedule("a", boundary(2));
    wheel.schedule("a", boundary(2 + 3 * SLOTS));

    Map<String, Long> firedAt = advanceTickByTick(1, 40);

    assertEquals(Map.of("a", 26L), firedAt, "fires once, at the new deadline three turns later");
  }

  @Test
  void schedule_existingKeyMovedWithinSameSlot_keepsOnlyOneEntry() {
    wheel.schedule("a", boundary(5 + SLOTS));
    wheel.schedule("a", boundary(5));

    assertEquals(1, advanceTo(boundary(5 + 2 * SLOTS)), "fires once though the slot is the same");
    assertEquals(List.of("a"), fired, "fired key");
  }

  @Test
  void remove_scheduledKey_returnsTrueAndNeverFires() {
    wheel.schedule("a", boundary(2));
    wheel.schedule("b", boundary(2));

    assertTrue(wheel.remove("a"), "remove of a scheduled key");
    assertFalse(wheel.contains("a"), "removed key is gone");
    assertEquals(1, advanceTo(boundary(10)), "only the other key fires");
    assertEquals(List.of("b"), fired, "removed key never fires");
  }

  @Test
  void remove_unknownKey_returnsFalse() {
    wheel.schedule("a", boundary(2));

    assertFalse(wheel.remove("never"), "key never scheduled");
    assertFalse(wheel.remove(null), "null is never scheduled");
    assertTrue(wheel.remove("a"), "first remove");
    assertFalse(wheel.remove("a"), "second remove");
    advanceTo(boundary(2));
    wheel.schedule("b", boundary(3));
    advanceTo(boundary(3));
    assertFalse(wheel.remove("b"), "a fired key is no longer scheduled");
  }

  @Test
  void sizeAndContains_acrossScheduleMoveRemoveAndFire_trackScheduledKeys() {
    wheel.schedule("a", boundary(1));
    wheel.schedule("b", boundary(2));
    wheel.schedule("c", boundary(3));
    assertEquals(3, wheel.size(), "after three schedules");

    wheel.schedule("b", boundary(20));
    assertEquals(3, wheel.size(), "a move does not change the size");

    wheel.remove("c");
    assertEquals(2, wheel.size(), "after a remove");
    assertFalse(wheel.contains("c"), "removed");

    advanceTo(boundary(1));
    assertEquals(1, wheel.size(), "after a fire");
    assertFalse(wheel.contains("a"), "fired");
    assertTrue(wheel.contains("b"), "still waiting");
  }

  @Test
  void advance_startNearEndOfWheel_wrapsSlotIndex() {
    advanceTo(boundary(6));
    for (int delay = 1; delay <= SLOTS + 2; delay++) {
      wheel.schedule("d" + delay, boundary(6 + delay));
    }

    Map<String, Long> firedAt = advanceTickByTick(7, 30);

    for (int delay = 1; delay <= SLOTS + 2; delay++) {
      assertEquals(6L + delay, firedAt.get("d" + delay), "key d" + delay + " across the wrap");
    }
  }

  @Test
  void advance_jumpOfManyTurns_firesEveryDueKeyInDeadlineOrder() {
    wheel.schedule("late", boundary(100 * SLOTS + 3));
    wheel.schedule("early", boundary(1));
    wheel.schedule("middle", boundary(50 * SLOTS));
    wheel.schedule("notYet", boundary(100 * SLOTS + 4));

    assertEquals(3, advanceTo(boundary(100 * SLOTS + 3)), "one jump fires every due key");
    assertEquals(List.of("early", "middle", "late"), fired, "in deadline-tick order");
    assertTrue(wheel.contains("notYet"), "a key one tick later is still waiting");
  }

  @Test
  void advance_keysDueInSameTick_fireInScheduleOrder() {
    wheel.schedule("x", boundary(4));
    wheel.schedule("y", boundary(4) - 1);
    wheel.schedule("z", boundary(3) + 1);
    wheel.schedule("x", boundary(4) - 2);

    advanceTo(boundary(4));

    assertEquals(List.of("y", "z", "x"), fired, "moving a key puts it last in its tick");
  }

  @Test
  void advance_timeGoesBackwards_isNoOp() {
    advanceTo(boundary(10));
    wheel.schedule("a", boundary(12));

    assertEquals(0, advanceTo(boundary(5)), "backwards");
    assertEquals(0, advanceTo(START - 1), "before the start of the wheel");
    assertEquals(0, advanceTo(boundary(10)), "the same time again");
    assertTrue(wheel.contains("a"), "key untouched by going backwards");
    assertEquals(0, advanceTo(boundary(12) - 1), "the wheel did not lose its position");
    assertEquals(1, advanceTo(boundary(12)), "fires at its deadline");
  }

  @Test
  void advance_callbackReschedulesFiredKeyLater_firesAgainOnlyAtNewDeadline() {
    wheel.schedule("a", boundary(2));

    int count = wheel.advance(boundary(6), key -> wheel.schedule(key, boundary(7)));

    assertEquals(1, count, "the new deadline is outside the window");
    assertTrue(wheel.contains("a"), "re-scheduled from the callback");
    assertEquals(0, advanceTo(boundary(7) - 1), "not before the new deadline");
    assertEquals(1, advanceTo(boundary(7)), "fires at the new deadline");
  }

  @Test
  void advance_callbackReschedulesWithinWindow_firesAgainInSameAdvanceAtEachDeadline() {
    wheel.schedule("a", boundary(2));
    List<Long> deadlines = new ArrayList<>();
    long[] next = {boundary(2)};

    int count =
        wheel.advance(
            boundary(20),
            key -> {
              deadlines.add(next[0]);
              next[0] += 5 * TICK;
              wheel.schedule(key, next[0]);
            });

    assertEquals(4, count, "fires at ticks 2, 7, 12 and 17 within one advance");
    assertEquals(
        List.of(boundary(2), boundary(7), boundary(12), boundary(17)),
        deadlines,
        "deadlines seen by the callback");
    assertEquals(0, advanceTo(boundary(22) - 1), "the last deadline, tick 22, is not due yet");
    assertEquals(1, advanceTo(boundary(22)), "fires at tick 22");
  }

  @Test
  void advance_callbackReschedulesFiredKeyInPast_firesAtNextTickNotInSameTick() {
    wheel.schedule("a", boundary(1));

    int count = wheel.advance(boundary(1), key -> wheel.schedule(key, START));

    assertEquals(1, count, "an overdue re-schedule does not fire in the tick being processed");
    assertEquals(1, advanceTo(boundary(2)), "it fires at the next tick");
  }

  @Test
  void advance_callbackRemovesKeyDueInSameTick_removedKeyDoesNotFire() {
    wheel.schedule("a", boundary(3));
    wheel.schedule("b", boundary(3));
    wheel.schedule("c", boundary(3));

    int count =
        wheel.advance(
            boundary(3),
            key -> {
              fired.add(key);
              if (key.equals("a")) {
                assertFalse(wheel.contains("a"), "the fired key has left the wheel");
                assertTrue(wheel.contains("b"), "a key due in the same tick is still scheduled");
                assertTrue(wheel.remove("b"), "so it can be removed");
                wheel.schedule("c", boundary(4));
              }
            });

    assertEquals(1, count, "b was removed and c moved away");
    assertEquals(List.of("a"), fired, "only a fired");
    assertEquals(1, advanceTo(boundary(4)), "c fires at its new deadline");
  }

  @Test
  void advance_callbackSchedulesIntoSlotBeingProcessed_newKeyWaitsFullTurn() {
    wheel.schedule("a", boundary(3));

    wheel.advance(boundary(3), key -> wheel.schedule("b", boundary(3 + SLOTS)));

    assertTrue(wheel.contains("b"), "b is scheduled in the slot that was being processed");
    Map<String, Long> firedAt = advanceTickByTick(4, 3 + 2 * SLOTS);
    assertEquals(Map.of("b", 3L + SLOTS), firedAt, "b fires one turn later, not at once");
  }

  @Test
  void advance_calledFromCallback_throwsIllegalStateException() {
    wheel.schedule("a", boundary(1));
    List<RuntimeException> thrown = new ArrayList<>();

    wheel.advance(
        boundary(1),
        key -> thrown.add(assertThrows(IllegalStateException.class, () -> advanceTo(boundary(2)))));

    assertEquals(1, thrown.size(), "the nested advance was rejected");
    wheel.schedule("b", boundary(2));
    assertEquals(1, advanceTo(boundary(2)), "the wheel still works afterwards");
  }

  @Test
  void advance_callbackThrows_remainingKeysFireOnNextAdvance() {
    wheel.schedule("a", boundary(2));
    wheel.schedule("b", boundary(2));
    wheel.schedule("c", boundary(5));
    IllegalStateException boom = new IllegalStateException("boom");

    IllegalStateException thrown =
        assertThrows(
            IllegalStateException.class,
            () ->
                wheel.advance(
                    boundary(6),
                    key -> {
                      fired.add(key);
                      throw boom;
                    }));

    assertEquals(boom, thrown, "the callback's exception propagates");
    assertEquals(List.of("a"), fired, "stopped at the failing key");
    assertTrue(wheel.contains("b"), "the rest of the tick stays scheduled");
    assertEquals(0, advanceTo(boundary(2)), "backwards from the failed window is a no-op");
    assertEquals(2, advanceTo(boundary(6)), "the next advance fires the remaining keys");
    assertEquals(List.of("a", "b", "c"), fired, "in deadline order");
  }

  @Test
  void advance_returnsNumberOfKeysFired() {
    for (int i = 0; i < 5; i++) {
      wheel.schedule("k" + i, boundary(1 + i));
    }

    assertEquals(2, advanceTo(boundary(2)), "two due");
    assertEquals(0, advanceTo(boundary(2) + 1), "none due");
    assertEquals(3, advanceTo(boundary(9)), "the rest");
  }

  @Test
  void advance_clockValuesWrapPastLongMax_firesNormally() {
    long start = Long.MAX_VALUE - 2 * TICK;
    TimingWheel<String> w = new TimingWheel<>(TICK, SLOTS, start);
    w.schedule("a", start + 5 * TICK);

    assertEquals(0, w.advance(start + 5 * TICK - 1, fired::add), "not early across the wrap");
    assertEquals(1, w.advance(start + 5 * TICK, fired::add), "fires across the wrap");
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
  void advance_emptyWheelHugeJump_skipsAheadAndKeepsPosition() {
    TimingWheel<String> w = new TimingWheel<>(1, SLOTS, 0);
    long far = Long.MAX_VALUE / 2;

    assertEquals(0, w.advance(far, fired::add), "nothing to fire");
    w.schedule("a", far);
    w.schedule("b", far + 1);
    assertEquals(0, w.advance(far, fired::add), "a deadline of now waits for the next tick");
    assertEquals(2, w.advance(far + 1, fired::add), "both fire at the next tick");
  }

  @Test
  void advance_singleSlotWheel_countsEveryTickAsATurn() {
    TimingWheel<String> w = new TimingWheel<>(TICK, 1, START);
    w.schedule("a", boundary(3));
    w.schedule("b", boundary(1));

    assertEquals(1, w.advance(boundary(2), fired::add), "b only");
    assertEquals(List.of("b"), fired, "fired key");
    assertEquals(1, w.advance(boundary(3), fired::add), "a at its tick");
  }

  /**
   * Random schedules, moves, removes and advances, also from inside the callback, checked against a
   * reference model: a TreeMap from the expected firing tick to the keys due then, in schedule
   * order. Every fired key must be the model's next one, which proves it fires exactly at the first
   * tick boundary at or after its deadline (or the next boundary when it was overdue), never early,
   * never twice, and never after being removed.
   */
  @Test
  void operations_randomAgainstReferenceModel_fireExactlyAtFirstBoundaryAtOrAfterDeadline() {
    Random random = new Random(0x1EAF);
    long tick = 7;
    int slots = 16;
    long start = -1_000;
    Model model = new Model(tick, start);
    TimingWheel<Integer> w = new TimingWheel<>(tick, slots, start);
    long now = start;
    int totalFired = 0;

    for (int op = 0; op < 10_000; op++) {
      int choice = random.nextInt(100);
      if (choice < 45) {
        int key = random.nextInt(400);
        long deadline = now + randomDelay(random, tick, slots);
        w.schedule(key, deadline);
        model.schedule(key, deadline);
      } else if (choice < 55) {
        int key = random.nextInt(400);
        assertEquals(model.remove(key), w.remove(key), "remove(" + key + ") at op " + op);
      } else if (choice < 60) {
        int key = random.nextInt(400);
        assertEquals(model.contains(key), w.contains(key), "contains(" + key + ") at op " + op);
      } else {
        long to = now + randomStep(random, tick, slots);
        long targetTick = Math.floorDiv(to - start, tick);
        long fromTick = model.currentTick;
        int[] seen = {0};
        int count =
            w.advance(
                to,
                key -> {
                  long due = model.expectFire(key, fromTick, targetTick);
                  seen[0]++;
                  // A callback acts while the wheel stands at the tick being processed.
                  if (random.nextInt(100) < 30) {
                    long deadline = model.boundary(due) + randomDelay(random, tick, slots) / 4;
                    w.schedule(key, deadline);
                    model.schedule(key, deadline);
                  }
                  if (random.nextInt(100) < 10) {
                    int other = random.nextInt(400);
                    assertEquals(model.remove(other), w.remove(other), "remove from callback");
                  }
                  if (random.nextInt(100) < 10) {
                    int other = random.nextInt(400);
                    long deadline = model.boundary(due) + randomDelay(random, tick, slots);
                    w.schedule(other, deadline);
                    model.schedule(other, deadline);
                  }
                });
        assertEquals(seen[0], count, "advance counts the keys it fired at op " + op);
        model.finishAdvance(targetTick);
        totalFired += count;
        if (to > now) {
          now = to;
        }
      }
      assertEquals(model.size(), w.size(), "size at op " + op);
    }
    assertTrue(totalFired > 1_000, "the run must fire plenty of keys, fired " + totalFired);
  }

  /** A delay in nanoseconds from a little in the past to several turns ahead. */
  private static long randomDelay(Random random, long tick, int slots) {
    int kind = random.nextInt(10);
    if (kind < 2) {
      return -random.nextInt((int) (3 * tick));
    }
    if (kind < 7) {
      return random.nextInt((int) (slots * tick));
    }
    return random.nextInt((int) (6 * slots * tick));
  }

  /** A clock step: sub-tick, one tick, a few ticks, several turns, or backwards. */
  private static long randomStep(Random random, long tick, int slots) {
    int kind = random.nextInt(10);
    if (kind < 3) {
      return random.nextInt((int) tick);
    }
    if (kind < 5) {
      return tick;
    }
    if (kind < 8) {
      return random.nextInt((int) (4 * tick));
    }
    if (kind < 9) {
      return random.nextInt((int) (5 * slots * tick));
    }
    return -random.nextInt((int) (3 * tick));
  }

  /** The expected behaviour, computed independently of the wheel's slots and circles. */
  private static final class Model {
    private final long tick;
    private final long start;
    private final TreeMap<Long, LinkedHashSet<Integer>> byTick = new TreeMap<>();
    private final Map<Integer, Long> tickOf = new HashMap<>();
    private final Map<Integer, Long> deadlineOf = new HashMap<>();
    long currentTick;

    Model(long tick, long start) {
      this.tick = tick;
      this.start = start;
    }

    long boundary(long n) {
      return start + n * tick;
    }

    void schedule(int key, long deadline) {
      remove(key);
      long firstAtOrAfter = -Math.floorDiv(start - deadline, tick);
      long due = Math.max(firstAtOrAfter, currentTick + 1);
      tickOf.put(key, due);
      deadlineOf.put(key, deadline);
      byTick.computeIfAbsent(due, t -> new LinkedHashSet<>()).add(key);
    }

    boolean remove(int key) {
      Long due = tickOf.remove(key);
      if (due == null) {
        return false;
      }
      deadlineOf.remove(key);
      LinkedHashSet<Integer> keys = byTick.get(due);
      keys.remove(key);
      if (keys.isEmpty()) {
        byTick.remove(due);
      }
      return true;
    }

    boolean contains(int key) {
      return tickOf.containsKey(key);
    }

    int size() {
      return tickOf.size();
    }

    /** Checks that {@code key} is the next key due and returns its tick, now the current one. */
    long expectFire(int key, long fromTick, long targetTick) {
      if (byTick.isEmpty()) {
        fail("key " + key + " fired but nothing is due");
      }
      Map.Entry<Long, LinkedHashSet<Integer>> first = byTick.firstEntry();
      long due = first.getKey();
      int expected = first.getValue().iterator().next();
      assertEquals(expected, key, "next key to fire, due at tick " + due);
      assertTrue(due > fromTick, "key " + key + " fired again for tick " + due);
      assertTrue(due <= targetTick, "key " + key + " fired early: due " + due + " > " + targetTick);
      assertTrue(
          boundary(due) - deadlineOf.get(key) >= 0, "key " + key + " fired before its deadline");
      remove(key);
      currentTick = due;
      return due;
    }

    void finishAdvance(long targetTick) {
      if (targetTick > currentTick) {
        currentTick = targetTick;
      }
      if (!byTick.isEmpty()) {
        long next = byTick.firstKey();
        assertTrue(next > currentTick, "keys due at tick " + next + " not fired by " + currentTick);
      }
    }
  }
}
