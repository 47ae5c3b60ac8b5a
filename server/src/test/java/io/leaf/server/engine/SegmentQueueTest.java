package io.leaf.server.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class SegmentQueueTest {

  private static Segment seg(long start) {
    return new Segment(start, start + 100, 100);
  }

  @Test
  void poll_outOfOrderAdds_ascending() {
    SegmentQueue q = new SegmentQueue();
    q.add(seg(301));
    q.add(seg(101));
    q.add(seg(401));
    q.add(seg(201));
    assertEquals(4, q.size(), "four queued");
    assertEquals(400, q.ids(), "four segments of 100");
    for (long start : new long[] {101, 201, 301, 401}) {
      assertEquals(start, q.poll().start, "ascending order");
    }
    assertNull(q.poll(), "empty");
    assertEquals(0, q.size(), "nothing left");
  }

  @Test
  void dropBelow_floor_dropsOnlyLowerSegments() {
    SegmentQueue q = new SegmentQueue();
    q.add(seg(101));
    q.add(seg(201));
    q.add(seg(301));
    q.dropBelow(250);
    assertEquals(301, q.peek().start, "[101, 201) and [201, 301) start below 250");
    assertEquals(1, q.size(), "one left");
  }
}
