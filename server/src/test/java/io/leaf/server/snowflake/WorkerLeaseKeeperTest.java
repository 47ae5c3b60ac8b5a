package io.leaf.server.snowflake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.engine.LimitExceededException;
import io.leaf.server.store.MemoryWorkerLeaseStore;
import io.leaf.server.store.StoreUnavailableException;
import io.leaf.server.store.WorkerLease;
import io.leaf.server.testing.FakeTicker;
import io.leaf.server.testing.FakeWallClock;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Leases on one shared in-memory table, every clock fake: the database's, and for each server a
 * wall clock and a monotonic clock. Real time passes only through {@link #elapse}.
 */
class WorkerLeaseKeeperTest {

  private static final long NOW = 1_750_000_000_000L;
  private static final Duration TTL = Duration.ofSeconds(30);

  private final FakeWallClock database = new FakeWallClock(NOW);
  private final MemoryWorkerLeaseStore table = new MemoryWorkerLeaseStore(database);

  /** One server: its clocks, generator and keeper. */
  private final class Server {
    final FakeWallClock wall;
    final FakeTicker ticker = new FakeTicker();
    final SnowflakeGenerator generator;
    final WorkerLeaseKeeper keeper;
    final String owner;
    long nextStepNanos;

    Server(String owner, int from, int to, long wallOffsetMs) {
      this.owner = owner;
      this.wall = new FakeWallClock(NOW + wallOffsetMs);
      this.generator = new SnowflakeGenerator(SnowflakeLayout.DEFAULT, wall, ticker);
      this.keeper = new WorkerLeaseKeeper(table, generator, ticker, from, to, TTL, owner);
    }

    void step() {
      nextStepNanos = keeper.step();
    }

    int worker() {
      return generator.workerId();
    }
  }

  private final java.util.List<Server> servers = new java.util.ArrayList<>();

  private Server server(String owner, int from, int to) {
    Server s = new Server(owner, from, to, 0);
    servers.add(s);
    return s;
  }

  /** Real time passes for the database and every server (a paused one's clocks run on too). */
  private void elapse(Duration d) {
    database.advance(d);
    for (Server s : servers) {
      s.wall.advance(d);
      s.ticker.advance(d);
    }
  }

  @Test
  void step_claimsWorkerAndStoresCeilingBeforeIssuing() {
    Server a = server("a", 0, 1023);
    assertThrows(NoWorkerLeaseException.class, a.generator::next, "nothing before a claim");
    a.step();
    WorkerLease row = table.row(a.worker()).orElseThrow();
    assertEquals("a", row.owner(), "the row names its holder");
    assertEquals(NOW + TTL.toMillis(), row.expiresMs(), "expiry by the database's clock");
    assertTrue(row.lastTimestampMs() >= NOW + TTL.toMillis(),
        "the stored ceiling covers every ID the lease allows: " + row.lastTimestampMs());
    long id = a.generator.next();
    assertTrue(SnowflakeLayout.DEFAULT.decompose(id).timestampMs() <= row.lastTimestampMs(),
        "IDs stay under the stored ceiling");
    assertEquals(TTL.toNanos() / 3, a.nextStepNanos, "renewal due after a third of the TTL");
  }

  @Test
  void step_renewal_extendsExpiryAndKeepsIssuing() {
    Server a = server("a", 0, 0);
    a.step();
    for (int i = 0; i < 10; i++) {
      elapse(Duration.ofNanos(a.nextStepNanos));
      a.step();
      a.generator.next();
    }
    assertEquals(database.millis() + TTL.toMillis(), table.row(0).orElseThrow().expiresMs(),
        "renewed to the database's now plus the TTL");
  }

  @Test
  void claim_expiredLease_goesToAnotherServerWhichStartsAboveTheCeiling() {
    Server a = server("a", 0, 0);
    a.step();
    long lastOfA = a.generator.next();
    Server b = server("b", 0, 0);
    b.step();
    LimitExceededException busy = assertThrows(LimitExceededException.class, b.generator::next);
    assertTrue(busy.getMessage().contains("--worker-id-range"), busy.getMessage());
    // a stops renewing (it died); its lease ends by the database's clock.
    elapse(TTL.plusMillis(1));
    b.step();
    assertEquals(0, b.worker(), "the expired worker ID is b's now");
    long first = b.generator.next();
    assertTrue(first > lastOfA, "b starts above what a could have issued");
    assertTrue(SnowflakeLayout.DEFAULT.decompose(first).timestampMs()
        > NOW + TTL.toMillis(), "above a's stored ceiling");
  }

  @Test
  void release_storesLastTimestampAndFreesWorker() {
    Server a = server("a", 0, 0);
    a.step();
    long last = a.generator.next();
    a.keeper.release();
    assertThrows(NoWorkerLeaseException.class, a.generator::next, "released: nothing more");
    WorkerLease row = table.row(0).orElseThrow();
    assertEquals(0, row.expiresMs(), "free at once");
    assertEquals(SnowflakeLayout.DEFAULT.decompose(last).timestampMs(), row.lastTimestampMs(),
        "the exact last timestamp, not the ceiling");
    Server b = server("b", 0, 0);
    b.step();
    assertEquals(0, b.worker(), "claimed without waiting for the TTL");
    assertTrue(b.generator.next() > last, "b continues above a's last ID");
  }

  @Test
  void claim_twoServersRacingForLastFreeWorker_exactlyOneWins() {
    Server a = server("a", 0, 1);
    a.step();
    Server b = server("b", 0, 1);
    Server c = server("c", 0, 1);
    b.step();
    c.step();
    Set<Integer> workers = new HashSet<>();
    int holders = 0;
    for (Server s : servers) {
      if (s.worker() >= 0) {
        holders++;
        workers.add(s.worker());
      }
    }
    assertEquals(2, holders, "two worker IDs, two holders");
    assertEquals(Set.of(0, 1), workers, "each worker ID once");
    assertThrows(LimitExceededException.class, c.generator::next, "the third is refused");
  }

  @Test
  void renewalsFailing_stopIssuingBeforeLeaseCanHaveExpired() {
    Server a = server("a", 0, 0);
    a.step();
    long expiry = table.row(0).orElseThrow().expiresMs();
    table.failWith(new StoreUnavailableException("database down", null));
    long issuedUntil = 0;
    while (database.millis() < expiry + 10_000) {
      elapse(Duration.ofMillis(100));
      a.step();
      try {
        a.generator.next();
        issuedUntil = database.millis();
      } catch (NoWorkerLeaseException e) {
        assertTrue(e.getMessage().contains("--worker-lease-ttl"), e.getMessage());
      }
    }
    assertTrue(issuedUntil < expiry, "the last ID (at database time " + issuedUntil
        + ") came before the lease could end (" + expiry + ")");
    assertTrue(expiry - issuedUntil >= TTL.toMillis() / 5 - 100,
        "stopped a margin early: " + (expiry - issuedUntil) + " ms");
    table.failWith(null);
    a.step();
    a.generator.next();
  }

  @Test
  void pausedServer_resumesAfterWorkerTakenOver_issuesNoIdOfTheOthers() {
    Server a = server("a", 0, 1);
    a.step();
    int worker = a.worker();
    Set<Long> issued = new HashSet<>();
    issued.add(a.generator.next());
    // a is paused (no renewals, no calls) while its clocks run on: its lease ends.
    elapse(TTL.plusSeconds(1));
    Server b = server("b", worker, worker);
    b.step();
    assertEquals(worker, b.worker(), "b took a's worker ID");
    for (int i = 0; i < 1000; i++) {
      assertTrue(issued.add(b.generator.next()), "no repeat");
    }
    // a resumes: a call before its keeper runs is fenced, then the keeper finds the lease gone.
    assertThrows(NoWorkerLeaseException.class, a.generator::next, "fenced by the monotonic clock");
    a.step();
    assertNotEquals(worker, a.worker(), "a renews nothing: the worker ID is b's");
    a.step();
    assertEquals(1 - worker, a.worker(), "a claims the other free worker ID");
    for (int i = 0; i < 1000; i++) {
      assertTrue(issued.add(a.generator.next()), "no repeat");
      assertTrue(issued.add(b.generator.next()), "no repeat");
    }
  }

  @Test
  void restart_wallClockOneHourBehind_zeroRepeatsAndKeepsAnswering() {
    Server a = server("a", 0, 0);
    a.step();
    Set<Long> issued = new HashSet<>();
    for (int i = 0; i < 100_000; i++) {
      issued.add(a.generator.next());
    }
    a.keeper.release();
    Server b = new Server("b", 0, 0, -Duration.ofHours(1).toMillis());
    servers.add(b);
    b.step();
    assertEquals(0, b.worker(), "b holds the worker ID");
    for (int round = 0; round < 100; round++) {
      for (int i = 0; i < 1000; i++) {
        assertTrue(issued.add(b.generator.next()), "no repeat after a restart an hour behind");
      }
      elapse(Duration.ofMillis(1));
    }
    assertTrue(b.generator.aheadOfWallMs() > 3_500_000, "the ID time runs about an hour ahead");
    assertFalse(issued.isEmpty(), "issued");
  }
}
