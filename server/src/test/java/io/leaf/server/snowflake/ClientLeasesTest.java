package io.leaf.server.snowflake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.engine.LimitExceededException;
import io.leaf.server.testing.FakeTicker;
import io.leaf.server.testing.FakeWallClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Client-held worker leases on an in-memory lease table with fake clocks (the database's, the
 * server's wall clock and its monotonic clock), beside the server's own keeper on the same rules.
 */
class ClientLeasesTest {

  private static final long NOW = 1_750_000_000_000L;
  private static final Duration TTL = Duration.ofSeconds(30);
  private static final long QUARANTINE_MS = WorkerClaims.quarantine(TTL).toMillis();

  private final FakeWallClock database = new FakeWallClock(NOW);
  private final FakeWallClock wall = new FakeWallClock(NOW);
  private final FakeTicker ticker = new FakeTicker();
  private final MemoryWorkerLeaseStore table = new MemoryWorkerLeaseStore(database);
  private final SnowflakeGenerator generator =
      new SnowflakeGenerator(SnowflakeLayout.DEFAULT, wall, ticker);

  private ClientLeases leases(int from, int to, int max) {
    WorkerClaims claims = new WorkerClaims(table, SnowflakeLayout.DEFAULT, from, to, TTL, false);
    return new ClientLeases(claims, generator, ticker, max);
  }

  private void elapse(Duration d) {
    database.advance(d);
    wall.advance(d);
    ticker.advance(d);
  }

  @Test
  void lease_freshClaim_quarantinedAboveDatabaseTimeWithCeilingStored() {
    ClientLeases leases = leases(0, 7, 4);
    ClientLeases.Granted g = leases.lease();
    assertEquals(QUARANTINE_MS, g.notBeforeMs(), "a claim waits out the TTL plus 1 s");
    assertEquals(TTL.toMillis() * 4 / 5, g.validForMs(), "valid for the TTL less a fifth");
    assertTrue(
        g.timestamps().floorMs() >= NOW + TTL.toMillis() + SnowflakeGenerator.MAX_BORROW_MS,
        "IDs start above the database's time at the claim plus the quarantine: "
            + g.timestamps().floorMs());
    assertTrue(g.timestamps().ceilingMs() > g.timestamps().floorMs(), "room above the floor");
    assertEquals(
        g.timestamps().ceilingMs(),
        table.row(g.workerId()).orElseThrow().lastTimestampMs(),
        "the ceiling is stored before the client may issue");
    assertEquals(SnowflakeLayout.DEFAULT, g.layout());
  }

  @Test
  void lease_exclusiveDatabase_noQuarantineAndCeilingFromTheClock() {
    WorkerClaims claims = new WorkerClaims(table, SnowflakeLayout.DEFAULT, 0, 7, TTL, true);
    ClientLeases.Granted g = new ClientLeases(claims, generator, ticker, 4).lease();
    assertEquals(0, g.notBeforeMs(), "no other process can hold a worker of this database");
    assertEquals(1, g.timestamps().floorMs(), "above what the last holder stored (nothing)");
    assertTrue(
        g.timestamps().ceilingMs() >= NOW + TTL.toMillis(),
        "IDs of the clock's time are covered at once: " + g.timestamps().ceilingMs());
    assertEquals(
        g.timestamps().ceilingMs(), table.row(g.workerId()).orElseThrow().lastTimestampMs());
  }

  @Test
  void lease_previousHolderStoredAhead_floorAboveIt() {
    long ahead = NOW + 3_600_000;
    table.rewrite(3, new WorkerLease(3, "gone", 0, ahead));
    ClientLeases.Granted g = leases(3, 3, 4).lease();
    assertEquals(
        ahead + 1, g.timestamps().floorMs(), "never a millisecond a previous holder may have used");
  }

  @Test
  void lease_maxHeld_refusedNamingTheFlagUntilOneIsReleasedOrForgotten() {
    ClientLeases leases = leases(0, 7, 2);
    ClientLeases.Granted a = leases.lease();
    leases.lease();
    LimitExceededException e = assertThrows(LimitExceededException.class, leases::lease);
    assertTrue(e.getMessage().contains("2 worker leases"), e.getMessage());
    assertEquals(ClientLeases.MAX_FLAG, e.flag());
    leases.release(a.leaseId());
    ClientLeases.Granted c = leases.lease();
    assertEquals(2, leases.held().size());
    // Nobody renews for a TTL: the clients have stopped, their slots are free again.
    elapse(TTL);
    assertEquals(0, leases.held().size(), "leases not renewed for a TTL are forgotten");
    leases.lease();
    assertThrows(UnknownWorkerLeaseException.class, () -> leases.renew(c.leaseId(), false));
  }

  @Test
  void lease_serverKeeperAndClients_neverShareAWorkerAndRangeFullNamesRangeFlag() {
    WorkerClaims claims = new WorkerClaims(table, SnowflakeLayout.DEFAULT, 0, 1, TTL, false);
    WorkerLeaseKeeper keeper = new WorkerLeaseKeeper(claims, generator, ticker, "server");
    ClientLeases leases = new ClientLeases(claims, generator, ticker, 10);
    keeper.step();
    int server = keeper.lease().orElseThrow().workerId();
    ClientLeases.Granted client = leases.lease();
    assertNotEquals(server, client.workerId());
    LimitExceededException e = assertThrows(LimitExceededException.class, leases::lease);
    assertEquals("--worker-id-range", e.flag());
    assertEquals(1, leases.held().size(), "a refused claim holds no slot");
  }

  @Test
  void renew_raisesCeilingFromServerClock_andLapsedRenewalIsANewClaim() {
    ClientLeases leases = leases(0, 7, 4);
    ClientLeases.Granted g = leases.lease();
    elapse(Duration.ofSeconds(40));
    ClientLeases.Granted r = leases.renew(g.leaseId(), false);
    // The server's own fence for it lapsed too (40 s > 24 s since its last renewal was sent).
    assertEquals(QUARANTINE_MS, r.notBeforeMs(), "a renewal after a lapse is a new claim");
    assertTrue(
        r.timestamps().floorMs() >= database.millis() + QUARANTINE_MS,
        "floor above the database now");
    elapse(Duration.ofSeconds(5));
    ClientLeases.Granted s = leases.renew(g.leaseId(), false);
    assertEquals(0, s.notBeforeMs(), "a timely renewal issues on");
    assertEquals(r.timestamps().floorMs(), s.timestamps().floorMs());
    assertTrue(
        s.timestamps().ceilingMs() >= wall.millis() + TTL.toMillis(), "ceiling follows the clock");
    ClientLeases.Granted t = leases.renew(g.leaseId(), true);
    assertEquals(QUARANTINE_MS, t.notBeforeMs(), "the client's own lapse counts too");
  }

  @Test
  void renew_rowDeletedOrMovedBack_leaseLost() {
    ClientLeases leases = leases(0, 7, 4);
    ClientLeases.Granted g = leases.lease();
    table.rewrite(g.workerId(), null);
    assertThrows(WorkerLeaseLostException.class, () -> leases.renew(g.leaseId(), false));
    assertThrows(UnknownWorkerLeaseException.class, () -> leases.renew(g.leaseId(), false));
    ClientLeases.Granted h = leases.lease();
    WorkerLease row = table.row(h.workerId()).orElseThrow();
    table.rewrite(
        h.workerId(), new WorkerLease(h.workerId(), row.owner(), row.expiresMs(), NOW - 1));
    assertThrows(WorkerLeaseLostException.class, () -> leases.renew(h.leaseId(), false));
    assertEquals(0, leases.held().size());
  }

  @Test
  void release_freesTheWorkerAtOnceKeepingTheCeiling() {
    ClientLeases leases = leases(4, 4, 4);
    ClientLeases.Granted g = leases.lease();
    leases.release(g.leaseId());
    leases.release(g.leaseId());
    WorkerLease row = table.row(4).orElseThrow();
    assertEquals(0, row.expiresMs(), "free at once");
    assertEquals(
        g.timestamps().ceilingMs(), row.lastTimestampMs(), "the next holder starts above it");
    ClientLeases.Granted next = leases.lease();
    assertEquals(4, next.workerId());
    assertTrue(next.timestamps().floorMs() > g.timestamps().ceilingMs());
  }
}
