package io.leaf.server.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.exception.DataAccessException;
import org.junit.jupiter.api.Test;

class ConflictRetryTest {

  private final List<Long> sleeps = new ArrayList<>();
  private long nextRandom = 0;
  private final ConflictRetry retry =
      new ConflictRetry(4, Duration.ofMillis(2), sleeps::add, () -> nextRandom);

  private static RuntimeException wrapped(SQLException e) {
    return new DataAccessException("statement failed", e);
  }

  private static RuntimeException deadlock() {
    return wrapped(
        new SQLTransactionRollbackException(
            "Deadlock found when trying to get lock; try restarting transaction", "40001", 1213));
  }

  @Test
  void isConflict_deadlockLockWaitTimeoutAndSerializationFailure_areConflicts() {
    assertTrue(ConflictRetry.isConflict(deadlock()), "1213 / 40001");
    assertTrue(
        ConflictRetry.isConflict(
            wrapped(new SQLException("Lock wait timeout exceeded", "HY000", 1205))),
        "lock wait timeout");
    assertTrue(
        ConflictRetry.isConflict(wrapped(new SQLException("serialization", "40001", 0))),
        "SQLState 40001 alone");
  }

  @Test
  void isConflict_connectionFailureOrDenied_isNotAConflict() {
    assertFalse(
        ConflictRetry.isConflict(
            wrapped(new SQLException("Communications link failure", "08S01", 0))),
        "a lost connection is an outage, not a conflict");
    assertFalse(
        ConflictRetry.isConflict(wrapped(new SQLException("UPDATE command denied", "42000", 1142))),
        "a denied write is not retried");
    assertFalse(ConflictRetry.isConflict(new IllegalStateException("no SQL at all")));
  }

  @Test
  void run_conflictThenSuccess_returnsResultAfterImmediateRetry() {
    AtomicInteger calls = new AtomicInteger();
    String result =
        retry.run(
            () -> {
              if (calls.incrementAndGet() == 1) {
                throw deadlock();
              }
              return "ok";
            });
    assertEquals("ok", result);
    assertEquals(2, calls.get(), "one retry");
    assertEquals(List.of(), sleeps, "the first retry does not wait");
  }

  @Test
  void run_conflictsEveryTime_givesUpAfterAttemptsWithGrowingJitteredDelays() {
    nextRandom = 3_000_001;
    AtomicInteger calls = new AtomicInteger();
    RuntimeException last = deadlock();
    RuntimeException thrown =
        assertThrows(
            RuntimeException.class,
            () ->
                retry.run(
                    () -> {
                      calls.incrementAndGet();
                      throw last;
                    }));
    assertSame(last, thrown, "the last conflict is rethrown as it came");
    assertEquals(4, calls.get(), "attempts in all");
    // Retries 2 and 3 wait d + random % d with d = 2 ms, then 4 ms.
    assertEquals(
        List.of(2_000_000L + 3_000_001L % 2_000_000L, 4_000_000L + 3_000_001L % 4_000_000L),
        sleeps);
  }

  @Test
  void run_delays_stayWithinBaseAndTwiceBase() {
    nextRandom = Long.MAX_VALUE;
    assertThrows(
        RuntimeException.class,
        () ->
            retry.run(
                () -> {
                  throw deadlock();
                }));
    assertTrue(sleeps.get(0) >= 2_000_000L && sleeps.get(0) < 4_000_000L, "first delay " + sleeps);
    assertTrue(sleeps.get(1) >= 4_000_000L && sleeps.get(1) < 8_000_000L, "second delay " + sleeps);
  }

  @Test
  void run_manyConflicts_delayStopsDoublingAtMaxDelay() {
    ConflictRetry capped =
        new ConflictRetry(10, Duration.ofMillis(1), Duration.ofMillis(8), sleeps::add, () -> 0L);
    assertThrows(
        RuntimeException.class,
        () ->
            capped.run(
                () -> {
                  throw deadlock();
                }));
    assertEquals(
        List.of(
            1_000_000L,
            2_000_000L,
            4_000_000L,
            8_000_000L,
            8_000_000L,
            8_000_000L,
            8_000_000L,
            8_000_000L),
        sleeps,
        "1, 2, 4 ms, then 8 ms each time");
  }

  @Test
  void default_worstCaseWaitsUnderASecondInAll() {
    List<Long> worst = new ArrayList<>();
    ConflictRetry defaults =
        new ConflictRetry(
            ConflictRetry.DEFAULT.attempts(),
            Duration.ofMillis(1),
            Duration.ofMillis(64),
            worst::add,
            () -> Long.MAX_VALUE - 1);
    assertThrows(
        RuntimeException.class,
        () ->
            defaults.run(
                () -> {
                  throw deadlock();
                }));
    long total = worst.stream().mapToLong(Long::longValue).sum();
    assertTrue(total < 1_000_000_000L, "worst-case total wait " + total + " ns");
    assertEquals(
        ConflictRetry.DEFAULT.attempts() - 2, worst.size(), "every retry but the first waits");
  }

  @Test
  void run_otherFailure_isThrownAtOnce() {
    AtomicInteger calls = new AtomicInteger();
    RuntimeException outage = wrapped(new SQLException("Connection refused", "08001", 0));
    assertSame(
        outage,
        assertThrows(
            RuntimeException.class,
            () ->
                retry.run(
                    () -> {
                      calls.incrementAndGet();
                      throw outage;
                    })));
    assertEquals(1, calls.get(), "no retry for an outage");
  }
}
