package io.leaf.bench;

import com.google.common.base.Ticker;
import io.leaf.server.sequence.MemorySectionStore;
import io.leaf.server.sequence.OwnerTerm;
import io.leaf.server.sequence.Sequences;
import java.lang.ref.Reference;

/**
 * Heap one active NextSequence key costs the server (O4): the growth of the used heap (after full
 * collections) over N keys each given one value, divided by N; run in its own JVM.
 *
 * <p>Each key is built afresh for its call, as a request would carry it, so whatever the server
 * keeps of it counts; the sections' stored ceilings are on an in-memory store.
 */
public final class HeapPerKey {

  /** A term that never ends: the key tables alone are measured. */
  private static final OwnerTerm TERM =
      new OwnerTerm() {
        @Override
        public long id() {
          return 1;
        }

        @Override
        public String owner() {
          return "bench";
        }

        @Override
        public long epoch() {
          return 1;
        }

        @Override
        public boolean mayIssue() {
          return true;
        }
      };

  private HeapPerKey() {}

  /** {@code <keys> <rounds>} */
  public static void main(String[] args) throws Exception {
    int keys = Integer.parseInt(args[0]);
    int rounds = Integer.parseInt(args[1]);
    for (int round = 1; round <= rounds; round++) {
      double perKey = measure(keys);
      Progress.say(
          "sequence heap round %d/%d: %,.0f bytes per active key (%,d keys)",
          round, rounds, perKey, keys);
      System.out.println(
          ResultLine.format(
              "measure", "keyHeap", "round", round, "keys", keys, "bytesPerKey", perKey));
    }
  }

  static double measure(int keys) throws InterruptedException {
    MemorySectionStore store = new MemorySectionStore((tag, owner, epoch) -> true);
    int warm = Sequences.SECTIONS * 4;
    Sequences sequences = new Sequences(store, keys + warm, Ticker.systemTicker(), Runnable::run);
    // Classes loaded and code run before the first reading, on a tag of its own.
    for (int s = 0; s < warm; s++) {
      sequences.next("warm", "warm-" + s, TERM).join();
    }
    long before = HeapPerTag.usedAfterGc();
    for (int k = 0; k < keys; k++) {
      sequences.next("bench", new StringBuilder("user-").append(k).toString(), TERM).join();
    }
    if (sequences.keysHeld() != keys + warm) {
      throw new IllegalStateException(sequences.keysHeld() + " of " + (keys + warm) + " keys held");
    }
    long after = HeapPerTag.usedAfterGc();
    Reference.reachabilityFence(sequences);
    Reference.reachabilityFence(store);
    return (after - before) / (double) keys;
  }
}
