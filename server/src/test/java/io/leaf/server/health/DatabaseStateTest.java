package io.leaf.server.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.testing.FakeTicker;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class DatabaseStateTest {

  private final FakeTicker ticker = new FakeTicker();
  private final DatabaseState state = new DatabaseState(ticker, Duration.ofMinutes(1));
  private final RuntimeException refused = new RuntimeException("connection refused");

  @Test
  void observe_firstAnswer_oneLineAndUp() {
    assertFalse(state.isUp(), "unknown before the first check");
    assertEquals("database reachable", state.observe(null));
    assertTrue(state.isUp());
    assertNull(state.observe(null), "no line while nothing changes");
  }

  @Test
  void observe_staysDownEveryTwoSeconds_oneLinePerMinute() {
    state.observe(null);
    assertEquals("database unreachable: connection refused", state.observe(refused));
    int lines = 0;
    for (int i = 0; i < 30 * 10; i++) { // ten minutes of checks every 2 s
      ticker.advance(Duration.ofSeconds(2));
      if (state.observe(refused) != null) {
        lines++;
      }
    }
    assertEquals(10, lines, "one reminder per minute of a ten-minute outage, not one per check");
    assertFalse(state.isUp());
  }

  @Test
  void observe_downThenUp_lineSaysHowLong() {
    state.observe(null);
    state.observe(refused);
    ticker.advance(Duration.ofSeconds(75));
    assertEquals("database reachable again after 1m15s unreachable", state.observe(null));
    assertTrue(state.isUp());
  }

  @Test
  void observe_downAtStart_lineAtOnce() {
    assertEquals("database unreachable: connection refused", state.observe(refused));
    ticker.advance(Duration.ofSeconds(2));
    assertNull(state.observe(refused));
  }

  @Test
  void observe_databaseRefuses_saysRefusingNotUnreachable() {
    state.observe(null);
    assertEquals(
        "database refusing Leaf: the database refused to take a segment of t:"
            + " UPDATE command denied",
        state.observe(
            new io.leaf.server.store.StoreRejectedException(
                "the database refused to take a segment of t: UPDATE command denied", null)));
    assertFalse(state.isUp());
  }

  @Test
  void reason_multiLineDriverMessage_firstLineOnly() {
    RuntimeException e =
        new RuntimeException(
            "SQL [select 1]; Communications link failure\n\n"
                + "The last packet sent successfully to the server was 0 milliseconds ago.",
            new SQLException("x"));
    assertEquals("SQL [select 1]; Communications link failure", DatabaseState.reason(e));
    String longLine = "x".repeat(1000);
    assertEquals(
        DatabaseState.MAX_REASON + 1,
        DatabaseState.reason(new RuntimeException(longLine)).length(),
        "capped with an ellipsis");
  }
}
