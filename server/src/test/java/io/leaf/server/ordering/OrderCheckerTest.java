package io.leaf.server.ordering;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.leaf.server.testing.OrderChecker;
import org.junit.jupiter.api.Test;

class OrderCheckerTest {

  @Test
  void violations_laterCallBelowEarlierReturn_counted() {
    OrderChecker c = new OrderChecker();
    c.record(0, 10, 2001);
    c.record(20, 30, 1005);
    assertEquals(1, c.violations(), "1005 sent after 2001 returned");
  }

  @Test
  void violations_overlappingCalls_notCounted() {
    OrderChecker c = new OrderChecker();
    c.record(0, 10, 2001);
    c.record(5, 30, 1005);
    c.record(31, 40, 2002);
    assertEquals(0, c.violations(), "overlapping calls may return in any order");
  }

  @Test
  void violations_batchNotIncreasing_counted() {
    OrderChecker c = new OrderChecker();
    c.record(0, 10, 5, 4);
    assertEquals(1, c.violations(), "a batch must be one increasing run");
    assertEquals(0, c.repeats(), "no repeats");
    c.record(11, 12, 5);
    assertEquals(1, c.repeats(), "5 twice");
  }
}
