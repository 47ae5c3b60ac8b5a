package io.leaf.server.sequence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.base.Ticker;
import io.leaf.server.testing.KeyedOrderChecker;
import io.leaf.server.testing.Pace;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Many callers on shared keys, statements on a real pool, a small step (many raises), few keys kept
 * (eviction all the time) and the owner term replaced while they run: per key, real-time order and
 * no repeats.
 */
class SequencesConcurrencyTest {

  private final ExecutorService database = Executors.newFixedThreadPool(2);

  @AfterEach
  void tearDown() {
    database.shutdownNow();
  }

  @Test
  void manyCallers_termsReplaced_noPerKeyViolationsNoRepeats() throws Exception {
    AtomicReference<FakeTerm> term = new AtomicReference<>(new FakeTerm("a", 1));
    MemorySectionStore store =
        new MemorySectionStore((tag, owner, epoch) -> term.get().epoch() == epoch);
    Sequences s = new Sequences(store, 64, Ticker.systemTicker(), database, 50);
    // Classes and logging initialised before the clock of the run starts.
    s.next("t", "warm-up", term.get()).get(30, TimeUnit.SECONDS);
    KeyedOrderChecker checker = new KeyedOrderChecker();
    AtomicBoolean done = new AtomicBoolean();
    AtomicLong refused = new AtomicLong();
    List<Thread> callers = new ArrayList<>();
    for (int c = 0; c < 16; c++) {
      Thread t =
          new Thread(
              () -> {
                while (!done.get()) {
                  String key = "k" + ThreadLocalRandom.current().nextInt(300);
                  long sent = System.nanoTime();
                  try {
                    long v = s.next("t", key, term.get()).get(5, TimeUnit.SECONDS);
                    checker.record(key, sent, System.nanoTime(), v);
                  } catch (Exception e) {
                    refused.incrementAndGet(); // a term ended under the call: the client retries
                  }
                }
              });
      t.start();
      callers.add(t);
    }
    for (int epoch = 2; epoch <= 6; epoch++) {
      Pace.holdMillis(300); // the load runs a while in each term
      FakeTerm old = term.get();
      old.end();
      term.set(new FakeTerm("a", epoch));
    }
    Pace.holdMillis(300);
    done.set(true);
    for (Thread t : callers) {
      t.join();
    }
    assertTrue(checker.calls() > 10_000, "calls made: " + checker.calls());
    assertEquals(0, checker.repeats(), "no value of a key twice");
    assertEquals(
        0,
        checker.violations(),
        "real-time order per key over "
            + checker.calls()
            + " calls on "
            + checker.keys()
            + " keys ("
            + refused.get()
            + " refused)");
    assertTrue(s.keysHeld() <= 64, "keys held within the bound: " + s.keysHeld());
  }
}
