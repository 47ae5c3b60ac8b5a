package io.leaf.server.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class TagBufferTest {

  private static final long START = 5_000_000_000L;

  @Test
  void touch_withinResolution_keepsStoredTime() {
    TagBuffer b = new TagBuffer("t", START);
    b.touch(START + TagBuffer.TOUCH_RESOLUTION_NANOS - 1);
    assertEquals(
        START, b.lastAccessNanos(), "a touch less than the resolution later writes nothing");
  }

  @Test
  void touch_afterResolution_storesNewTime() {
    TagBuffer b = new TagBuffer("t", START);
    long later = START + TagBuffer.TOUCH_RESOLUTION_NANOS;
    b.touch(later);
    assertEquals(later, b.lastAccessNanos(), "a touch one resolution later is stored");
    b.touch(later + 60_000_000_000L);
    assertEquals(later + 60_000_000_000L, b.lastAccessNanos(), "a minute later is stored");
  }

  @Test
  void touch_earlierTime_neverMovesBack() {
    TagBuffer b = new TagBuffer("t", START);
    b.touch(START - 10 * TagBuffer.TOUCH_RESOLUTION_NANOS);
    assertEquals(START, b.lastAccessNanos(), "a stale reading from a racing thread is ignored");
  }
}
