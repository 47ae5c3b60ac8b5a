package io.leaf.server.sequence;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeyTableTest {

  @Test
  void put_manyKeys_eachReadBack() {
    KeyTable t = new KeyTable();
    for (long h = 1; h <= 10_000; h++) {
      t.put(h * 0x9E3779B97F4A7C15L, h);
    }
    assertEquals(10_000, t.size(), "size");
    for (long h = 1; h <= 10_000; h++) {
      assertEquals(h, t.get(h * 0x9E3779B97F4A7C15L), "key " + h);
    }
  }

  @Test
  void sweep_unusedSinceLastSweep_droppedWithTheirValues() {
    KeyTable t = new KeyTable();
    t.put(1, 10);
    t.put(2, 20);
    List<Long> dropped = new ArrayList<>();
    assertEquals(0, t.sweep(dropped::add), "all used since they were put");
    t.get(1);
    assertEquals(1, t.sweep(dropped::add), "key 2 unused since the last sweep");
    assertEquals(List.of(20L), dropped, "its last value told");
    assertEquals(10, t.get(1), "key 1 kept");
    assertEquals(0, t.get(2), "key 2 gone");
  }

  @Test
  void zeroHash_keptLikeAnyOther() {
    KeyTable t = new KeyTable();
    t.put(0, 5);
    assertEquals(5, t.get(0), "hash 0 (the empty slot's mark) still kept");
  }
}
