package io.leaf.server.ordering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Status;
import io.leaf.server.testing.FakeTicker;
import io.leaf.server.testing.FakeWallClock;
import io.leaf.server.testing.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Calls on a STRICT tag that its new owner can serve shortly are held, not refused: on fake clocks
 * and a manual scheduler, so every wait is a step of the test.
 */
class HeldStrictCallsTest {

  private static final Duration TTL = Duration.ofSeconds(10);

  /** An owner lease's life and a new owner's wait-out: half the TTL each. */
  private static final Duration LEASE = TTL.dividedBy(2);

  private static final String TAG = "orders";

  private final FakeWallClock dbClock = new FakeWallClock(1_000_000);
  private final MemoryOrderingStore store = new MemoryOrderingStore(dbClock);
  private final FakeTicker ticker = new FakeTicker();
  private final ManualScheduler timer = new ManualScheduler(ticker);

  private StrictTags server(String self, java.util.concurrent.Executor database, int maxHeld) {
    StrictTags s = new StrictTags(store, self, TTL, ticker, database, t -> {});
    s.holdWith(new HeldCalls(timer, maxHeld));
    return s;
  }

  /** Moves every clock by {@code d} in renewal-sized steps, renewing and running due timers. */
  private void advance(Duration d, StrictTags... servers) {
    Duration step = LEASE.dividedBy(3);
    while (!d.isNegative() && !d.isZero()) {
      Duration by = d.compareTo(step) < 0 ? d : step;
      dbClock.advance(by);
      ticker.advance(by);
      for (StrictTags s : servers) {
        s.tick();
      }
      timer.runDue();
      d = d.minus(by);
    }
  }

  private static Status refusal(CompletableFuture<Route> f) {
    try {
      f.join();
    } catch (CompletionException e) {
      return Status.fromThrowable(e.getCause());
    }
    throw new AssertionError("expected a refusal, got " + f.join().kind());
  }

  @Test
  void waitOut_callHeld_issuedWhenItEnds() {
    StrictTags a = server("a:1", Runnable::run, 10);
    store.setOrdering(TAG, TagOrdering.STRICT);
    CompletableFuture<Route> first = a.route(TAG, false);
    assertFalse(first.isDone(), "held, not refused, during the wait-out");
    advance(LEASE.minusMillis(1), a);
    assertFalse(first.isDone(), "still waiting out 1 ms before the lease's end");
    advance(Duration.ofMillis(2), a);
    assertTrue(first.isDone(), "routed again when the wait-out ended");
    assertEquals(Route.Kind.ISSUE, first.join().kind(), "and issued");
    assertEquals(1, a.acquisitions(), "by the same acquisition");
  }

  @Test
  void waitOut_deadlineTooShort_refusedAtOnceAsBefore() throws Exception {
    StrictTags a = server("a:1", Runnable::run, 10);
    store.setOrdering(TAG, TagOrdering.STRICT);
    ScheduledExecutorService cancel = Executors.newSingleThreadScheduledExecutor();
    try {
      Context.CancellableContext ctx =
          Context.ROOT.withDeadline(Deadline.after(50, TimeUnit.MILLISECONDS), cancel);
      CompletableFuture<Route> f = ctx.call(() -> a.route(TAG, false));
      ctx.cancel(null);
      Status s = refusal(f);
      assertEquals(Status.Code.UNAVAILABLE, s.getCode(), s.toString());
      assertTrue(s.getDescription().contains("waits out"), s.getDescription());
    } finally {
      cancel.shutdownNow();
    }
  }

  @Test
  void held_beyondTheLimit_resourceExhaustedNamingTheFlag() {
    StrictTags a = server("a:1", Runnable::run, 2);
    store.setOrdering(TAG, TagOrdering.STRICT);
    List<CompletableFuture<Route>> calls = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      calls.add(a.route(TAG, false));
    }
    assertFalse(calls.get(0).isDone());
    assertFalse(calls.get(1).isDone());
    Status s = refusal(calls.get(2));
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, s.getCode(), s.toString());
    assertTrue(s.getDescription().contains("--max-held-strict-calls"), s.getDescription());
    advance(TTL.plusMillis(1), a);
    assertEquals(Route.Kind.ISSUE, calls.get(0).join().kind());
    assertEquals(Route.Kind.ISSUE, calls.get(1).join().kind());
  }

  @Test
  void holdingOff_waitOutRefusedAsBefore() {
    StrictTags a = server("a:1", Runnable::run, 0);
    store.setOrdering(TAG, TagOrdering.STRICT);
    Status s = refusal(a.route(TAG, false));
    assertEquals(Status.Code.UNAVAILABLE, s.getCode(), s.toString());
    assertTrue(s.getDescription().contains("waits out"), s.getDescription());
  }

  @Test
  void forwardedCall_duringAcquisitionInFlight_heldThenIssued() {
    List<CompletableFuture<Route>> forwarded = new ArrayList<>();
    StrictTags[] b = new StrictTags[1];
    OrderingStore hooked =
        new DelegatingOrderingStore(store) {
          @Override
          public java.util.OptionalLong acquire(
              String bizTag, String owner, long heldEpoch, Duration ttl) {
            java.util.OptionalLong won = store.acquire(bizTag, owner, heldEpoch, ttl);
            // Another server read the row just written and forwards a call here before b has
            // heard the answer of its acquisition.
            forwarded.add(b[0].route(TAG, true));
            return won;
          }
        };
    b[0] = new StrictTags(hooked, "b:1", TTL, ticker, Runnable::run, t -> {});
    b[0].holdWith(new HeldCalls(timer, 10));
    store.setOrdering(TAG, TagOrdering.STRICT);
    CompletableFuture<Route> own = b[0].route(TAG, false);
    assertEquals(1, forwarded.size());
    assertFalse(forwarded.get(0).isDone(), "held, not refused as 'not its owner'");
    advance(TTL.plusMillis(200), b[0]);
    assertEquals(Route.Kind.ISSUE, own.join().kind(), "the caller that acquired it");
    assertEquals(Route.Kind.ISSUE, forwarded.get(0).join().kind(), "and the forwarded call");
    assertEquals(1, b[0].acquisitions(), "one acquisition");
  }

  @Test
  void forwardedCall_toAServerThatNeverOwns_refusedWithinATtl() {
    StrictTags b = server("b:1", Runnable::run, 10);
    store.setOrdering(TAG, TagOrdering.STRICT);
    store.acquire(TAG, "c:1", 0, TTL); // c owns it; b has not read the row yet
    store.setOrdering(TAG, TagOrdering.STRICT);
    CompletableFuture<Route> forwarded = b.route(TAG, true);
    // b knows c is the owner once it has read the row: a forwarded call is never sent on.
    Status s = refusal(forwarded);
    assertEquals(Status.Code.UNAVAILABLE, s.getCode(), s.toString());
    assertTrue(s.getDescription().contains("c:1"), s.getDescription());
  }
}
