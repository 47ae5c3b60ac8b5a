package io.leaf.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Calls that issue IDs of a tag whose owner a server named go to that owner first; an owner that
 * does not answer is passed over for the retry period and the call goes on to the targets.
 */
class OwnerRoutesTest {

  private static final long OWNER_FIRST = 1_000_000;
  private final AtomicLong clock = new AtomicLong();
  private FakeLeafService target;
  private FakeLeafService owner;
  private Targets targets;
  private LeafRpcs rpcs;

  @BeforeEach
  void setUp() throws Exception {
    owner = new FakeLeafService(OWNER_FIRST, "owner:1");
    target = new FakeLeafService(1, "owner:1");
    Map<String, String> names = Map.of("owner:1", owner.name());
    OwnerRoutes owners =
        new OwnerRoutes(
            address -> {
              String n = names.get(address);
              if (n == null) {
                throw new IllegalArgumentException("no such target " + address);
              }
              return InProcessChannelBuilder.forName(n).build();
            },
            Duration.ofSeconds(30).toNanos(),
            clock::get);
    ManagedChannel toTarget = target.channel();
    targets =
        targets(
            toTarget, Duration.ofSeconds(5).toNanos(), Duration.ofMillis(500).toNanos(), owners);
    rpcs = new LeafRpcs(targets);
  }

  /** Targets of one channel, one round, passing a down owner over for 30 s on the test's clock. */
  private Targets targets(
      ManagedChannel channel, long deadlineNanos, long failoverAfterNanos, OwnerRoutes owners) {
    return new Targets(
        List.of(channel),
        true,
        null,
        TagTokens.NONE,
        new Targets.Timing(
            deadlineNanos, failoverAfterNanos, Duration.ofSeconds(30).toNanos(), 1, clock::get),
        owners);
  }

  @AfterEach
  void tearDown() throws Exception {
    targets.close();
    target.close();
    owner.close();
  }

  @Test
  void ownerNamed_laterCallsGoToIt_snowflakeAndOtherTagsUnaffected() {
    assertEquals(1, rpcs.nextId("t"), "the first call goes to the target, which names the owner");
    assertEquals(OWNER_FIRST, rpcs.nextId("t"), "then straight to the owner");
    assertEquals(OWNER_FIRST + 1, rpcs.nextIds("t", 1)[0], "batches too");
    assertEquals(1, target.calls(), "the target was called once");
    assertEquals(2, rpcs.nextId("u"), "another tag goes to the target until named");
  }

  @Test
  void nextSequence_ownerKnown_goesToTheTargetAndNamesNoOwner() {
    assertEquals(1, rpcs.nextId("t"), "the target names the owner");
    assertEquals(OWNER_FIRST, rpcs.nextId("t"), "an ID call goes to the owner");

    assertEquals(2, rpcs.nextSequence("t", "k"), "a sequence goes to the target all the same");
    assertEquals(1, owner.calls(), "the owner saw the ID call only");

    assertEquals(3, rpcs.nextSequence("u", "k"), "the target names the owner here too");
    assertEquals(4, rpcs.nextId("u"), "a sequence's answer taught no owner of u");
    assertEquals(OWNER_FIRST + 1, rpcs.nextId("u"), "an ID call's answer did");
  }

  @Test
  void ownerDown_callMovesToTheTarget_ownerPassedOverThenTriedAgain() {
    rpcs.nextId("t");
    owner.fail(Status.UNAVAILABLE.withDescription("gone"));

    assertEquals(2, rpcs.nextId("t"), "the same call went on to the target");
    assertEquals(1, owner.calls());
    assertEquals(3, rpcs.nextId("t"), "the owner is passed over");
    assertEquals(1, owner.calls());

    owner.heal();
    clock.addAndGet(Duration.ofSeconds(30).toNanos());
    assertEquals(OWNER_FIRST, rpcs.nextId("t"), "the owner, still named, tried after the period");
    assertEquals(3, target.calls());
  }

  @Test
  void ownerAnswersAnError_theAnswerStands() {
    rpcs.nextId("t");
    owner.fail(Status.NOT_FOUND.withDescription("biz_tag t not found"));

    assertThrows(TagNotFoundException.class, () -> rpcs.nextId("t"));
    assertEquals(1, target.calls(), "an answer is not an outage: the call did not move");
  }

  @Test
  void ownerSlowPastADeadlineShorterThanTheBound_deadlineExceededOwnerKept() throws Exception {
    OwnerRoutes owners =
        new OwnerRoutes(
            address -> InProcessChannelBuilder.forName(owner.name()).build(),
            Duration.ofSeconds(30).toNanos(),
            clock::get);
    try (Targets t =
        targets(
            target.channel(),
            Duration.ofMillis(300).toNanos(),
            Duration.ofSeconds(2).toNanos(),
            owners)) {
      LeafRpcs r = new LeafRpcs(t);
      r.nextId("t");
      owner.block();
      assertThrows(LeafDeadlineExceededException.class, () -> r.nextId("t"));
      owner.release();
      // The blocked call's handler and this call race for the owner's next ID once released.
      assertTrue(r.nextId("t") >= OWNER_FIRST, "the owner was not passed over");
    }
  }

  @Test
  void ownerNamedAsAUri_neverCalled() throws Exception {
    for (String named : List.of("unix:/tmp/leaf.sock", "dns://resolver/evil:443", "evil")) {
      OwnerRoutes owners =
          new OwnerRoutes(
              address -> {
                throw new AssertionError("connected to " + address);
              },
              1,
              clock::get);
      owners.learn("t", named);
      assertEquals(null, owners.ownerOf("t"), named);
    }
  }

  @Test
  void ownerAddressUnusable_targetServes() throws Exception {
    try (FakeLeafService naming = new FakeLeafService(1, "unusable:1");
        Targets t =
            targets(
                naming.channel(),
                Duration.ofSeconds(5).toNanos(),
                Duration.ofMillis(500).toNanos(),
                new OwnerRoutes(
                    address -> {
                      throw new IllegalArgumentException("unusable " + address);
                    },
                    Duration.ofSeconds(30).toNanos(),
                    clock::get))) {
      LeafRpcs r = new LeafRpcs(t);
      assertEquals(1, r.nextId("t"));
      assertEquals(2, r.nextId("t"));
      assertEquals(3, r.nextId("t"));
    }
  }
}
