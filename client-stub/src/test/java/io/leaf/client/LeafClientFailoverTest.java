package io.leaf.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A client of two targets in order of preference, on a fake clock: it fails over when the first is
 * unavailable or silent, stays away for {@code retryPreferredAfter}, and moves back once the first
 * answers again; no call the second could answer fails meanwhile.
 */
class LeafClientFailoverTest {

  private static final long SECOND_REGION = 1L << 62;
  private final AtomicLong clock = new AtomicLong();
  private FakeLeafService near;
  private FakeLeafService far;
  private LeafClient client;

  @BeforeEach
  void setUp() throws Exception {
    near = new FakeLeafService();
    far = new FakeLeafService(SECOND_REGION);
    client =
        LeafClient.forChannelBuilders(List.of(near.channelBuilder(), far.channelBuilder()))
            .maxAttempts(1)
            .deadline(Duration.ofSeconds(5))
            .failoverAfter(Duration.ofMillis(300))
            .retryPreferredAfter(Duration.ofSeconds(30))
            .clock(clock::get)
            .build();
  }

  @AfterEach
  void tearDown() throws Exception {
    near.release();
    client.close();
    near.close();
    far.close();
  }

  private void advance(Duration d) {
    clock.addAndGet(d.toNanos());
  }

  @Test
  void unavailable_failsOverAtOnce_staysAway_thenMovesBackWhenRecovered() {
    assertEquals(1, client.nextId("t"), "the preferred target first");

    near.fail(Status.UNAVAILABLE.withDescription("connection refused"));
    assertEquals(SECOND_REGION, client.nextId("t"), "the same call moved to the next target");
    assertEquals(SECOND_REGION + 1, client.nextId("t"));
    assertEquals(2, near.calls(), "a target found down is passed over: no second attempt");

    near.heal();
    advance(Duration.ofSeconds(29));
    assertEquals(SECOND_REGION + 2, client.nextId("t"), "still away before retryPreferredAfter");
    assertEquals(2, near.calls());

    advance(Duration.ofSeconds(1));
    assertEquals(2, client.nextId("t"), "back on the preferred target once it answers");
    assertEquals(3, far.calls(), "and no more calls to the other");
  }

  @Test
  void preferredStillDown_afterRetryPeriod_oneProbeThenAwayAgain() {
    near.fail(Status.UNAVAILABLE);
    client.nextId("t");
    advance(Duration.ofSeconds(30));

    assertEquals(SECOND_REGION + 1, client.nextId("t"), "probed, found down, moved on");
    assertEquals(2, near.calls());
    assertEquals(SECOND_REGION + 2, client.nextId("t"));
    assertEquals(2, near.calls(), "marked down again for another period");
  }

  @Test
  @Timeout(10)
  void silentTarget_failsOverAfterTheBound_notTheDeadline() {
    near.block();
    long started = System.nanoTime();

    assertEquals(SECOND_REGION, client.nextId("t"));

    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    assertTrue(tookMs >= 300 && tookMs < 3_000, "moved after failoverAfter (300 ms): " + tookMs);
    near.release();
    assertEquals(SECOND_REGION + 1, client.nextId("t"), "the silent target is passed over");
  }

  @Test
  void everyIdCall_failsOver_rangesAndStreamsToo() {
    near.fail(Status.UNAVAILABLE);

    List<IdRange> ranges = client.reserveIds("t", 10);
    long[] batch = client.nextIds("t", 5);

    assertEquals(SECOND_REGION, ranges.get(0).start());
    assertEquals(SECOND_REGION + 10, batch[0]);
  }

  @Test
  void connectionLost_unknownChannelClosed_movesOn_createTagDoesNot() {
    // grpc-java reports a connection reset under a call as UNKNOWN "channel closed".
    near.fail(Status.UNKNOWN.withDescription("channel closed"));
    assertEquals(SECOND_REGION, client.nextId("t"), "the call moved to the next target");
    assertEquals(SECOND_REGION + 1, client.reserveIds("t", 1).get(0).start(), "ReserveIds too");

    advance(Duration.ofSeconds(30));
    assertThrows(
        LeafException.class, () -> client.createTag("t", 0, 0, null), "CreateTag never moves");
    assertEquals(2, far.calls(), "nothing of CreateTag reached the other target");
  }

  @Test
  void createTag_neverMoves_andOtherFailuresDoNotMoveCalls() {
    near.fail(Status.UNAVAILABLE);
    assertThrows(
        LeafUnavailableException.class,
        () -> client.createTag("t", 0, 0, null),
        "CreateTag on another target would create the tag in another database");
    assertEquals(0, far.calls());

    near.fail(Status.NOT_FOUND.withDescription("biz_tag t not found"));
    advance(Duration.ofSeconds(30));
    assertThrows(TagNotFoundException.class, () -> client.nextId("t"));
    assertEquals(0, far.calls(), "an answer is not an outage");
  }

  @Test
  void bothDown_unavailableAfterTryingEach() {
    near.fail(Status.UNAVAILABLE);
    far.fail(Status.UNAVAILABLE.withDescription("far away and down"));

    LeafUnavailableException e =
        assertThrows(LeafUnavailableException.class, () -> client.nextId("t"));

    assertEquals("far away and down", e.description());
    assertEquals(1, near.calls());
    assertEquals(1, far.calls());
  }

  @Test
  void everyTargetLostTheCall_anotherRoundWithinMaxAttempts() {
    Status lost = Status.UNKNOWN.withDescription("channel closed");
    try (LeafClient rounds =
        LeafClient.forChannelBuilders(List.of(near.channelBuilder(), far.channelBuilder()))
            .maxAttempts(3)
            .deadline(Duration.ofSeconds(5))
            .failoverAfter(Duration.ofMillis(300))
            .clock(clock::get)
            .build()) {
      near.failTimes(lost, 1);
      far.failTimes(lost, 1);
      assertEquals(1, rounds.nextId("t"), "the second round's first target answered");
      assertEquals(2, near.calls());
      assertEquals(1, far.calls());

      near.fail(lost);
      far.fail(lost);
      assertThrows(LeafException.class, () -> rounds.nextId("t"));
      assertEquals(2 + 3, near.calls(), "three rounds (maxAttempts 3), not more");
      assertEquals(1 + 3, far.calls());
    }
  }

  @Test
  void cachedIdGenerator_keepsServingThroughTheMove() throws Exception {
    try (CachedIdGenerator ids =
        CachedIdGenerator.builder(client, "t").minBlockSize(100).maxBlockSize(100).build()) {
      Set<Long> seen = new HashSet<>();
      for (int i = 0; i < 150; i++) {
        assertTrue(seen.add(ids.next()));
      }
      near.fail(Status.UNAVAILABLE);
      for (int i = 0; i < 500; i++) {
        assertTrue(seen.add(ids.next()), "no ID twice");
      }
      assertTrue(
          seen.stream().anyMatch(id -> id >= SECOND_REGION), "refilled from the other target");
      assertEquals(650, seen.size(), "every call served, none failed");
    }
  }
}
