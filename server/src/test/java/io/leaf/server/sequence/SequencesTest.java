package io.leaf.server.sequence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.base.Ticker;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The section rules on a store in memory, statements run inline, time on a fake ticker. */
class SequencesTest {

  private static final long STEP = 10;

  private record Lease(String owner, long epoch) {}

  private final AtomicReference<Lease> lease = new AtomicReference<>(new Lease("a", 1));
  private final MemorySectionStore store =
      new MemorySectionStore(
          (tag, owner, epoch) -> lease.get().owner().equals(owner) && lease.get().epoch() == epoch);
  private final AtomicLong nanos = new AtomicLong();
  private final Ticker ticker =
      new Ticker() {
        @Override
        public long read() {
          return nanos.get();
        }
      };

  private Sequences server(long maxKeys) {
    return new Sequences(store, maxKeys, ticker, Runnable::run, STEP);
  }

  private static long next(Sequences s, String key, OwnerTerm term) {
    return s.next("t", key, term).join();
  }

  private static int section(String key) {
    long hash =
        com.google.common.hash.Hashing.murmur3_128()
            .hashString(key, java.nio.charset.StandardCharsets.UTF_8)
            .asLong();
    return (int) (hash & (Sequences.SECTIONS - 1));
  }

  @Test
  void next_newKeys_startAtOneAndIncreaseByOne() {
    Sequences s = server(100);
    FakeTerm term = new FakeTerm("a", 1);
    assertEquals(1, next(s, "alice", term), "a new key's first value");
    assertEquals(1, next(s, "bob", term), "each key its own sequence");
    assertEquals(2, next(s, "alice", term), "then the next");
  }

  @Test
  void next_pastCeiling_storedCeilingAlwaysAboveIssued() {
    Sequences s = server(100);
    FakeTerm term = new FakeTerm("a", 1);
    long last = 0;
    for (int i = 0; i < 35; i++) {
      long v = next(s, "k", term);
      assertEquals(last + 1, v, "call " + i + " takes the next value");
      assertTrue(
          store.ceiling("t", section("k")) >= v,
          "value "
              + v
              + " issued only under the stored ceiling "
              + store.ceiling("t", section("k")));
      last = v;
    }
  }

  @Test
  void restart_sameStore_jumpsAtMostTwoStepsNeverBack() {
    FakeTerm first = new FakeTerm("a", 1);
    Sequences before = server(100);
    long last = 0;
    for (int i = 0; i < 7; i++) {
      last = next(before, "k", first);
    }
    first.end();
    lease.set(new Lease("a", 2));
    long after = next(server(100), "k", new FakeTerm("a", 2));
    assertTrue(after > last, "after a restart " + after + " is above " + last);
    assertTrue(after <= last + 2 * STEP, "a jump of at most the ceiling's lead: " + after);
  }

  @Test
  void rowMovedBack_whileServing_noValueAgain() {
    Sequences s = server(100);
    FakeTerm term = new FakeTerm("a", 1);
    long last = 0;
    for (int i = 0; i < 16; i++) {
      last = next(s, "k", term);
    }
    long stored = store.ceiling("t", section("k"));
    // A restored backup or a promoted lagging replica: the row goes back below issued values.
    store.put("t", section("k"), 0);
    for (int i = 0; i < 3 * STEP; i++) {
      long v = next(s, "k", term);
      assertTrue(v > last, "value " + v + " after " + last + " (stored " + stored + " before)");
      last = v;
    }
  }

  @Test
  void raiseGroup_rowNearTheEnd_notAdoptedAsRaised() {
    int near = section("k");
    int group = Sequences.groupOf(near);
    int first = group * Sequences.PER_GROUP;
    store.put("t", near, Section.MAX_CEILING - STEP / 2);
    java.util.Map<Integer, Long> raised = store.raiseGroup("t", group, STEP, "a", 1);
    assertTrue(!raised.containsKey(near), "a row that could not be raised is not reported");
    assertEquals(STEP, raised.get(near == first ? first + 1 : first), "a fresh row from 0");
    assertEquals(Sequences.PER_GROUP - 1, raised.size(), "the group's other sections, no more");
  }

  @Test
  void termChange_sameServer_memoryOfTheOldTermNotReused() {
    Sequences a = server(100);
    FakeTerm a1 = new FakeTerm("a", 1);
    next(a, "k", a1);
    next(a, "k", a1);
    a1.end();
    lease.set(new Lease("b", 2));
    long fromB = next(server(100), "k", new FakeTerm("b", 2));
    lease.set(new Lease("a", 3));
    long back = next(a, "k", new FakeTerm("a", 3));
    assertTrue(back > fromB, "the returning owner gives " + back + " after b gave " + fromB);
  }

  @Test
  void eviction_fewKeysKept_everyKeyStillIncreases() {
    Sequences s = server(4);
    FakeTerm term = new FakeTerm("a", 1);
    Map<String, Long> last = new HashMap<>();
    for (int round = 0; round < 20; round++) {
      for (int k = 0; k < 50; k++) {
        String key = "key-" + k;
        long v = next(s, key, term);
        long before = last.getOrDefault(key, 0L);
        assertTrue(v > before, key + " got " + v + " after " + before);
        last.put(key, v);
      }
      assertTrue(s.keysHeld() <= 4, "keys held: " + s.keysHeld());
    }
  }

  @Test
  void deposedOwner_raiseRefusedByTheLease_nothingAboveItsCeiling() {
    Sequences a = server(100);
    FakeTerm term = new FakeTerm("a", 1);
    for (int i = 0; i < 3; i++) {
      next(a, "k", term);
    }
    long ceiling = store.ceiling("t", section("k"));
    long raises = store.raises();
    lease.set(new Lease("b", 2)); // taken over; a's own clock has not noticed yet
    long highest = 0;
    StatusRuntimeException refused = null;
    for (int i = 0; i < 20 && refused == null; i++) {
      try {
        highest = next(a, "k", term);
      } catch (CompletionException e) {
        refused = (StatusRuntimeException) e.getCause();
      }
    }
    assertTrue(refused != null, "a's calls are refused once its ceiling is used up");
    assertEquals(Status.Code.UNAVAILABLE, refused.getStatus().getCode(), "refused: " + refused);
    assertTrue(highest <= ceiling, "a issued " + highest + ", at most the ceiling " + ceiling);
    assertEquals(raises, store.raises(), "no raise of the deposed owner was written");
    assertEquals(ceiling, store.ceiling("t", section("k")), "the ceiling stays");
  }

  @Test
  void endedTerm_refusedAtOnce() {
    Sequences s = server(100);
    FakeTerm term = new FakeTerm("a", 1);
    next(s, "k", term);
    term.end();
    CompletionException e = assertThrows(CompletionException.class, () -> next(s, "k", term));
    assertEquals(Status.Code.UNAVAILABLE, Status.fromThrowable(e.getCause()).getCode(), "no lease");
  }

  @Test
  void keyBytes_emptyOrLong_invalidArgument() {
    assertEquals(
        Status.Code.INVALID_ARGUMENT,
        assertThrows(StatusRuntimeException.class, () -> Sequences.keyBytes(""))
            .getStatus()
            .getCode(),
        "empty key");
    assertEquals(128, Sequences.keyBytes("é".repeat(64)).length, "128 bytes pass");
    StatusRuntimeException e =
        assertThrows(StatusRuntimeException.class, () -> Sequences.keyBytes("é".repeat(65)));
    assertTrue(e.getStatus().getDescription().contains("130 bytes"), e.getMessage());
  }

  @Test
  void tick_idleTag_droppedThenLoadedAgainAbove() {
    Sequences s = server(100);
    FakeTerm term = new FakeTerm("a", 1);
    long v = next(s, "k", term);
    nanos.addAndGet(10_000);
    s.tick(5_000);
    assertEquals(0, s.keysHeld(), "an idle tag's keys leave memory");
    assertTrue(next(s, "k", term) > v, "and its keys go on above");
  }
}
