package io.leaf.server.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.store.IdOverflowException;
import io.leaf.server.store.InvalidTagStateException;
import io.leaf.server.store.StoreRejectedException;
import io.leaf.server.store.StoreUnavailableException;
import io.leaf.server.store.TagNotFoundException;
import io.leaf.server.store.WriteConflictException;
import io.leaf.server.testing.FakeTicker;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The memory of failed first loads: bounded, at most the TTL, answers without exceptions kept. */
class MissingTagsTest {

  private static final Duration TTL = Duration.ofSeconds(2);
  private static final long MIN = Duration.ofMillis(100).toNanos();
  private static final long MAX = Duration.ofSeconds(5).toNanos();

  private final FakeTicker ticker = new FakeTicker();
  private final MissingTags missing = new MissingTags(TTL, ticker);

  @Test
  void add_floodOfDistinctNames_boundedByCapacityOldestEvicted() {
    int flood = MissingTags.CAPACITY + 20_000;
    for (int i = 0; i < flood; i++) {
      missing.add("ghost-" + i, new TagNotFoundException("ghost-" + i), ticker.read(), MIN, MAX);
    }
    assertTrue(
        missing.size() <= MissingTags.CAPACITY,
        "at most " + MissingTags.CAPACITY + " names remembered: " + missing.size());
    assertTrue(missing.contains("ghost-" + (flood - 1)), "the newest name is remembered");
    assertFalse(missing.contains("ghost-0"), "the oldest went first");
  }

  @Test
  void answer_notFound_untilTheTtlOnly() {
    missing.add("ghost", new TagNotFoundException("ghost"), ticker.read(), MIN, MAX);
    assertInstanceOf(TagNotFoundException.class, missing.answer("ghost", ticker.read()));
    ticker.advance(TTL.minusMillis(1));
    assertInstanceOf(TagNotFoundException.class, missing.answer("ghost", ticker.read()));
    ticker.advance(Duration.ofMillis(1));
    assertNull(missing.answer("ghost", ticker.read()), "forgotten at the TTL");
  }

  @Test
  void answer_failure_aNewExceptionOfTheSameKindDuringTheBackoff() {
    StoreRejectedException refused = new StoreRejectedException("refused: read-only", null);
    missing.add("t", refused, ticker.read(), MIN, MAX);
    RuntimeException answer = missing.answer("t", ticker.read());
    assertInstanceOf(StoreRejectedException.class, answer);
    assertNotSame(refused, answer, "the load's exception is not kept");
    assertEquals(refused.getMessage(), answer.getMessage());
    ticker.advance(Duration.ofNanos(MIN));
    assertNull(missing.answer("t", ticker.read()), "loaded again once the back-off passed");

    missing.add(
        "u",
        new StoreUnavailableException("database unavailable: refused", null),
        ticker.read(),
        MIN,
        MAX);
    assertEquals(
        "database unavailable: refused (biz_tag u has no buffered IDs; next database"
            + " attempt in 100 ms)",
        missing.answer("u", ticker.read()).getMessage());
    missing.add("s", new InvalidTagStateException("NULL step"), ticker.read(), MIN, MAX);
    assertInstanceOf(InvalidTagStateException.class, missing.answer("s", ticker.read()));
    missing.add("o", new IdOverflowException("o", Long.MAX_VALUE, 10), ticker.read(), MIN, MAX);
    assertInstanceOf(IdOverflowException.class, missing.answer("o", ticker.read()));
  }

  @Test
  void add_writeConflict_notRemembered() {
    assertEquals(
        0, missing.add("c", new WriteConflictException("conflict", null), ticker.read(), MIN, MAX));
    assertNull(missing.answer("c", ticker.read()));
  }

  @Test
  void add_unknownFailure_answeredAsInternalForItsBackoffWithBoundedMessage() {
    assertEquals(
        1,
        missing.add(
            "x", new IllegalStateException("bug " + "y".repeat(10_000)), ticker.read(), MIN, MAX));
    RuntimeException answer = missing.answer("x", ticker.read());
    assertTrue(answer instanceof IllegalStateException, "INTERNAL, as the failure was: " + answer);
    assertTrue(answer.getMessage().startsWith("bug "), answer.getMessage());
    assertTrue(
        answer.getMessage().length() <= MissingTags.MAX_MESSAGE_CHARS + 1,
        "the message kept per name is bounded: " + answer.getMessage().length());
    ticker.advance(Duration.ofNanos(MIN));
    assertNull(missing.answer("x", ticker.read()), "after its back-off the next call loads");
  }

  @Test
  void clearFailures_endsBackoffsKeepsNotFound() {
    missing.add("t", new StoreUnavailableException("down", null), ticker.read(), MIN, MAX);
    missing.add("ghost", new TagNotFoundException("ghost"), ticker.read(), MIN, MAX);
    missing.clearFailures();
    assertNull(missing.answer("t", ticker.read()));
    assertTrue(missing.contains("ghost"));
  }

  @Test
  void zeroTtl_remembersNothing() {
    MissingTags none = new MissingTags(Duration.ZERO, ticker);
    none.add("ghost", new TagNotFoundException("ghost"), ticker.read(), MIN, MAX);
    none.add("t", new StoreUnavailableException("down", null), ticker.read(), MIN, MAX);
    assertNull(none.answer("ghost", ticker.read()));
    assertNull(none.answer("t", ticker.read()));
  }
}
