package io.leaf.server.ordering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.leaf.server.testing.FakeTicker;
import io.leaf.server.testing.FakeWallClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * The lease and forwarding rules on fake clocks: the database's clock and each server's monotonic
 * clock move only when a test moves them; statements run inline.
 */
class StrictTagsTest {

  private static final Duration TTL = Duration.ofSeconds(10);

  /** An owner lease's life: half the TTL; a new owner waits out the other half. */
  private static final Duration LEASE = TTL.dividedBy(2);

  private static final String TAG = "orders";

  private final FakeWallClock dbClock = new FakeWallClock(1_000_000);
  private final MemoryOrderingStore store = new MemoryOrderingStore(dbClock);
  private final FakeTicker tickerA = new FakeTicker();
  private final FakeTicker tickerB = new FakeTicker();
  private final List<String> evictedA = new ArrayList<>();
  private final StrictTags a =
      new StrictTags(store, "a:1", TTL, tickerA, Runnable::run, evictedA::add);
  private final StrictTags b = new StrictTags(store, "b:1", TTL, tickerB, Runnable::run, t -> {});

  /** Both servers' clocks and the database's move together (no pause). */
  private void advance(Duration d) {
    dbClock.advance(d);
    tickerA.advance(d);
    tickerB.advance(d);
  }

  private static Route routeOf(StrictTags s) {
    return s.route(TAG, false).join();
  }

  private static Status refusal(StrictTags s, boolean forwarded) {
    try {
      s.route(TAG, forwarded).join();
    } catch (CompletionException e) {
      return Status.fromThrowable(e.getCause());
    }
    throw new AssertionError("expected a refusal");
  }

  @Test
  void route_perServerTag_servedLocally() {
    assertEquals(Route.Kind.PER_SERVER, routeOf(a).kind(), "no row: PER_SERVER");
  }

  @Test
  void route_strictTag_firstServerWaitsOutThenIssues() {
    store.setOrdering(TAG, TagOrdering.STRICT);
    Status wait = refusal(a, false);
    assertEquals(Status.Code.UNAVAILABLE, wait.getCode(), "acquired, waiting out: " + wait);
    assertTrue(wait.getDescription().contains("waits out"), wait.getDescription());
    advance(TTL.dividedBy(3));
    a.tick();
    advance(TTL.dividedBy(3));
    a.tick();
    advance(TTL.dividedBy(3).plusMillis(10));
    Route r = routeOf(a);
    assertEquals(Route.Kind.ISSUE, r.kind(), "after a whole TTL the owner issues");
    assertEquals(List.of(TAG), evictedA, "the engine's earlier segments dropped once");
    routeOf(a);
    assertEquals(1, evictedA.size(), "not again in the same term");
  }

  @Test
  void tick_manyLeasesHeld_renewedInOneCallOfTheStore() {
    java.util.concurrent.atomic.AtomicInteger batches =
        new java.util.concurrent.atomic.AtomicInteger();
    OrderingStore counting =
        new DelegatingOrderingStore(store) {
          @Override
          public boolean renew(String bizTag, String owner, long epoch, Duration ttl) {
            throw new AssertionError("one lease renewed alone: " + bizTag);
          }

          @Override
          public java.util.Set<String> renewAll(
              java.util.Map<String, Long> held, String owner, Duration ttl) {
            batches.incrementAndGet();
            java.util.Set<String> renewed = new java.util.HashSet<>();
            held.forEach(
                (k, e) -> {
                  if (store.renew(k, owner, e, ttl)) {
                    renewed.add(k);
                  }
                });
            return renewed;
          }
        };
    StrictTags c = new StrictTags(counting, "c:1", TTL, tickerA, Runnable::run, t -> {});
    List<Route> routes = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      store.setOrdering("g" + i, TagOrdering.STRICT);
      c.route("g" + i, false).exceptionally(e -> null).join(); // acquired, waiting out
    }
    for (int round = 0; round < 6; round++) {
      advance(TTL.dividedBy(6));
      c.tick();
      for (int i = 0; i < 200; i++) {
        Route r = c.route("g" + i, false).exceptionally(e -> null).join();
        if (round == 5) {
          routes.add(r);
        }
      }
    }
    assertEquals(6, batches.get(), "one renewal call per tick for 200 leases");
    assertTrue(
        routes.stream().allMatch(r -> r != null && r.kind() == Route.Kind.ISSUE),
        "every lease kept, issuing after a TTL");
  }

  @Test
  void gap_fromTheFirstCallWaitingOut_toTheFirstRouted_heardOnce() {
    List<Long> gaps = new ArrayList<>();
    a.onGap(gaps::add);
    store.setOrdering(TAG, TagOrdering.STRICT);
    refusal(a, false); // acquires, waits out: calls are unserved from here
    advance(Duration.ofSeconds(2));
    refusal(a, false);
    a.tick();
    assertEquals(List.of(), gaps, "still waiting out: no gap heard yet");
    advance(Duration.ofSeconds(2));
    a.tick();
    advance(Duration.ofMillis(1100)); // 5.1 s: the wait-out (half the TTL) is over
    routeOf(a);
    routeOf(a);
    assertEquals(
        List.of(Duration.ofMillis(5100).toNanos()), gaps, "one gap, from the first refusal");
  }

  @Test
  void route_otherServer_forwardsToOwner_forwardedCallRefused() {
    ownedByA();
    Route r = routeOf(b);
    assertEquals(Route.Kind.FORWARD, r.kind(), "b forwards");
    assertEquals("a:1", r.owner(), "to a");
    Status s = refusal(b, true);
    assertEquals(Status.Code.UNAVAILABLE, s.getCode(), "a forwarded call is never sent on");
    assertTrue(s.getDescription().contains("a:1"), "names the owner: " + s.getDescription());
  }

  @Test
  void route_ownerWithoutRenewal_stopsBeforeDatabaseExpiry() {
    Route r = ownedByA();
    // No renewal gets through: a stops at the last renewal's send + 4/5 of the lease.
    advance(LEASE.multipliedBy(4).dividedBy(5));
    assertTrue(!r.ownership().mayIssue(tickerA.read(), r.term()), "fence lapsed");
    assertTrue(store.read(TAG).remainingMs() > 0, "while the database still counts the lease");
  }

  @Test
  void route_pausedOwnerResumesAfterExpiry_doesNotIssue() {
    Route r = ownedByA();
    // a is paused: its monotonic clock is stopped; b's and the database's run on.
    dbClock.advance(TTL.plusSeconds(1));
    tickerB.advance(TTL.plusSeconds(1));
    assertEquals(Status.Code.UNAVAILABLE, refusal(b, false).getCode(), "b acquires, waits out");
    assertEquals("b:1", store.read(TAG).owner(), "b holds the row");
    // a resumes: its clock jumps by the pause.
    tickerA.advance(TTL.plusSeconds(1));
    assertTrue(!r.ownership().mayIssue(tickerA.read(), r.term()), "a's old term is over");
    a.tick();
    assertEquals(Route.Kind.FORWARD, routeOf(a).kind(), "a forwards to b now");
  }

  @Test
  void renewal_refusedAfterRowTaken_endsTermAtOnce() {
    Route r = ownedByA();
    store.put(new LeaseRow(TAG, TagOrdering.STRICT, "b:1", 99, dbClock.millis() + 10_000, 0));
    a.tick();
    assertTrue(!r.ownership().mayIssue(tickerA.read(), r.term()), "refused renewal ends it");
  }

  @Test
  void renewal_rowPutBackAfterLapse_startsNewTermWithWaitOut() {
    Route r = ownedByA();
    long epoch = store.read(TAG).epoch();
    LeaseRow copy = store.read(TAG);
    // a's renewals do not get through for a whole TTL (the database is unreachable to it).
    advance(TTL);
    assertTrue(!r.ownership().mayIssue(tickerA.read(), r.term()), "lapsed");
    // Then its own old row reappears (a restored backup) and a renewal succeeds.
    store.put(new LeaseRow(TAG, TagOrdering.STRICT, "a:1", epoch, dbClock.millis() + 10_000, 0));
    assertEquals(copy.owner(), "a:1", "the copy is a's");
    Status wait = refusal(a, false);
    assertTrue(wait.getDescription().contains("waits out"), "a new term waits out: " + wait);
  }

  @Test
  void route_rowDeletedAndRetakenByOther_oldOwnerStopsBeforeNewOneIssues() {
    Route r = ownedByA();
    store.delete(TAG);
    store.setOrdering(TAG, TagOrdering.STRICT);
    assertEquals(Status.Code.UNAVAILABLE, refusal(b, false).getCode(), "b acquires the new row");
    long bAcquired = tickerB.read();
    a.tick(); // a's renewal is refused: the row is b's
    // a stopped now; b issues only from bAcquired + the lease.
    assertTrue(!r.ownership().mayIssue(tickerA.read(), r.term()), "a stopped");
    Status early = refusal(b, false);
    assertTrue(early.getDescription().contains("waits out"), early.toString());
    for (int i = 0; i < 3; i++) {
      advance(LEASE.dividedBy(3).plusMillis(1));
      b.tick();
    }
    assertEquals(Route.Kind.ISSUE, routeOf(b).kind(), "b issues after " + LEASE);
    assertTrue(tickerB.read() - bAcquired >= LEASE.toNanos(), "not before the wait-out");
  }

  @Test
  void setOrdering_backToPerServer_ownerRenewalRefused() {
    Route r = ownedByA();
    store.setOrdering(TAG, TagOrdering.PER_SERVER);
    a.tick();
    assertTrue(!r.ownership().mayIssue(tickerA.read(), r.term()), "no longer STRICT");
    assertEquals(Route.Kind.PER_SERVER, routeOf(a).kind(), "served per server");
  }

  @Test
  void route_scattered_servedHereEvenWhenForwarded() {
    store.setOrdering(TAG, TagOrdering.SCATTERED);
    assertEquals(Route.Kind.SCATTERED, routeOf(a).kind(), "this server's segments, scattered");
    assertTrue(a.route(TAG, true).join().kind() == Route.Kind.SCATTERED, "never forwarded");
  }

  /** a acquires and waits out with renewals; returns its issuing route. */
  @Test
  void route_twoServersOneAddress_noTakeOverWhileLeaseHolds() {
    Route r = ownedByA();
    FakeTicker tickerTwin = new FakeTicker();
    StrictTags twin = new StrictTags(store, "a:1", TTL, tickerTwin, Runnable::run, t -> {});
    long epoch = store.read(TAG).epoch();
    for (int i = 0; i < 6; i++) {
      Status s = refusal(twin, false);
      assertEquals(Status.Code.UNAVAILABLE, s.getCode(), s.toString());
      assertTrue(s.getDescription().contains("same --advertise-address"), s.getDescription());
      advance(TTL.dividedBy(3));
      tickerTwin.advance(TTL.dividedBy(3));
      a.tick();
      twin.tick();
      assertTrue(r.ownership().mayIssue(tickerA.read(), r.term()), "a keeps its term, round " + i);
    }
    assertEquals(epoch, store.read(TAG).epoch(), "no acquisition by the twin");
    assertEquals(0, twin.acquisitions(), "the twin acquired nothing");
  }

  @Test
  void boundTo_ephemeralPort_namesTheBoundPort() {
    StrictTags ephemeral = new StrictTags(store, "h:0", TTL, tickerB, Runnable::run, t -> {});
    ephemeral.boundTo(-1);
    assertEquals("h:0", ephemeral.self(), "no port bound (in-process): unchanged");
    ephemeral.boundTo(4711);
    assertEquals("h:4711", ephemeral.self());
    a.boundTo(4712);
    assertEquals("a:1", a.self(), "an address given is kept");
  }

  private Route ownedByA() {
    store.setOrdering(TAG, TagOrdering.STRICT);
    refusal(a, false);
    for (int i = 0; i < 3; i++) {
      advance(LEASE.dividedBy(3).plusMillis(5));
      a.tick();
    }
    Route r = routeOf(a);
    assertEquals(Route.Kind.ISSUE, r.kind(), "a issues");
    return r;
  }
}
