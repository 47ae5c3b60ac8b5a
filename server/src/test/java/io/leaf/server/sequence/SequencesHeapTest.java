package io.leaf.server.sequence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.base.Ticker;
import org.junit.jupiter.api.Test;

/** Heap per active key: the key tables' arrays over 1,000,000 keys held at once. */
class SequencesHeapTest {

  @Test
  void millionKeys_keyTablesUnder128BytesPerKey() {
    FakeTerm term = new FakeTerm("a", 1);
    Sequences s =
        new Sequences(
            new MemorySectionStore((t, o, e) -> true),
            1_000_000,
            Ticker.systemTicker(),
            Runnable::run);
    for (int k = 0; k < 1_000_000; k++) {
      s.next("t", "user-" + k, term).join();
    }
    long held = s.keysHeld();
    double perKey = (double) s.keyTableBytes() / held;
    System.out.printf("sequence keys: %d held, %.1f bytes of key table per key%n", held, perKey);
    assertEquals(1_000_000, held, "every key kept within --sequence-max-keys");
    assertTrue(perKey <= 128, "bytes per key: " + perKey);
  }
}
