package io.leaf.server.snowflake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.engine.LimitExceededException;
import io.leaf.server.store.StoreUnavailableException;
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

    /** While true, every call of this server to the table fails (a network partition). */
    volatile boolean cutOff;

    Server(String owner, int from, int to, long wallOffsetMs) {
      this(owner, from, to, wallOffsetMs, false);
    }

    Server(String owner, int from, int to, long wallOffsetMs, boolean exclusive) {
      this.owner = owner;
      // A server started later reads the real time then (the database's fake clock).
      this.wall = new FakeWallClock(database.millis() + wallOffsetMs);
      this.generator = new SnowflakeGenerator(SnowflakeLayout.DEFAULT, wall, ticker);
      this.keeper =
          new WorkerLeaseKeeper(
              partitionable(this),
              generator,
              ticker,
              new LeaseSettings(from, to, TTL, exclusive),
              owner);
    }

    long dueNanos;

    void step() {
      nextStepNanos = keeper.step();
      dueNanos = nextStepNanos == Long.MAX_VALUE ? Long.MAX_VALUE : ticker.read() + nextStepNanos;
    }

    /** Claims, waits out the quarantine while renewing, and is issuing when it returns. */
    void start() {
      step();
      run(QUARANTINE, this);
      assertTrue(generator.leaseValid(), owner + " issues after the quarantine");
    }

    int leased() {
      return keeper.lease().map(WorkerLease::workerId).orElse(-1);
    }

    int worker() {
      return generator.workerId();
    }
  }

  private static final Duration QUARANTINE = WorkerLeaseKeeper.quarantine(TTL);

  /** The shared table as {@code server} reaches it: unreachable while it is cut off. */
  private io.leaf.server.snowflake.WorkerLeaseStore partitionable(Server server) {
    return new io.leaf.server.snowflake.WorkerLeaseStore() {
      private void reach() {
        if (server.cutOff) {
          throw new StoreUnavailableException("database unreachable (partition)", null);
        }
      }

      @Override
      public void createSchemaIfMissing() {}

      @Override
      public java.util.Optional<WorkerLease> claim(
          int fromId, int toId, String owner, Duration ttl) {
        reach();
        return table.claim(fromId, toId, owner, ttl);
      }

      @Override
      public java.util.Optional<WorkerLease> renew(
          int workerId, String owner, Duration ttl, long lastTimestampMs, long storedAtLeastMs) {
        reach();
        return table.renew(workerId, owner, ttl, lastTimestampMs, storedAtLeastMs);
      }

      @Override
      public void release(int workerId, String owner, long lastTimestampMs) {
        reach();
        table.release(workerId, owner, lastTimestampMs);
      }
    };
  }

  private final java.util.List<Server> servers = new java.util.ArrayList<>();

  /** Real time passes in 10 ms ticks; each of {@code live} steps its keeper when due. */
  private void run(Duration total, Server... live) {
    issue(total, 0, new HashSet<>(), live);
  }

  /**
   * Real time passes in 10 ms ticks; each of {@code live} steps its keeper when due and takes
   * {@code perTick} IDs when it can (a server under load).
   *
   * @return IDs that were issued twice
   */
  private long issue(Duration total, int perTick, Set<Long> issued, Server... live) {
    long repeats = 0;
    for (long t = 0; t <= total.toMillis(); t += 10) {
      for (Server s : live) {
        if (s.ticker.read() - s.dueNanos >= 0) {
          s.step();
        }
        for (int i = 0; i < perTick; i++) {
          try {
            if (!issued.add(s.generator.next())) {
              repeats++;
            }
          } catch (RuntimeException refused) {
            break;
          }
        }
      }
      elapse(Duration.ofMillis(10));
    }
    return repeats;
  }

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
    WorkerLease row = table.row(a.leased()).orElseThrow();
    assertEquals("a", row.owner(), "the row names its holder");
    assertEquals(NOW + TTL.toMillis(), row.expiresMs(), "expiry by the database's clock");
    NoWorkerLeaseException held =
        assertThrows(
            NoWorkerLeaseException.class,
            a.generator::next,
            "a claim is quarantined: nothing before any earlier holder has certainly stopped");
    assertTrue(held.getMessage().contains("is claimed"), held.getMessage());
    assertTrue(a.nextStepNanos <= TTL.toNanos() / 3, "the claim is renewed while it waits");
    run(QUARANTINE, a);
    row = table.row(a.worker()).orElseThrow();
    assertTrue(
        row.lastTimestampMs() >= database.millis() + TTL.toMillis(),
        "the stored ceiling covers every ID the lease allows: " + row.lastTimestampMs());
    long id = a.generator.next();
    assertTrue(
        SnowflakeLayout.DEFAULT.decompose(id).timestampMs()
            > NOW + TTL.toMillis() + SnowflakeGenerator.MAX_BORROW_MS,
        "above the database's time at the claim plus the quarantine");
    assertTrue(
        SnowflakeLayout.DEFAULT.decompose(id).timestampMs() <= row.lastTimestampMs(),
        "IDs stay under the stored ceiling");
    a.step();
    assertEquals(TTL.toNanos() / 3, a.nextStepNanos, "renewal due after a third of the TTL");
  }

  @Test
  void claim_exclusiveDatabase_issuesAtOnceAboveWhatTheLastProcessStored() {
    Server a = server("a", 0, 0);
    a.start();
    long lastOfA = a.generator.next();
    long ceilingOfA = table.row(0).orElseThrow().lastTimestampMs();
    a.cutOff = true; // a is killed -9: no release; the next process to open the database is b
    Server b = new Server("b", 0, 0, 0, true);
    servers.add(b);
    elapse(TTL.plusMillis(1));
    b.step();
    long first = b.generator.next();
    assertTrue(first > lastOfA, "above what a issued");
    assertTrue(
        SnowflakeLayout.DEFAULT.decompose(first).timestampMs() > ceilingOfA,
        "above a's stored ceiling, without a quarantine");
    assertTrue(
        table.row(0).orElseThrow().lastTimestampMs()
            >= SnowflakeLayout.DEFAULT.decompose(first).timestampMs(),
        "b stored its own ceiling");

    b.keeper.release();
    Server c = new Server("c", 0, 0, 0, true);
    servers.add(c);
    c.step();
    assertTrue(c.generator.next() > first, "c issues at once, above b's last ID");
  }

  @Test
  void step_renewal_extendsExpiryAndKeepsIssuing() {
    Server a = server("a", 0, 0);
    a.start();
    for (int i = 0; i < 10; i++) {
      elapse(Duration.ofNanos(a.nextStepNanos));
      a.step();
      a.generator.next();
    }
    assertEquals(
        database.millis() + TTL.toMillis(),
        table.row(0).orElseThrow().expiresMs(),
        "renewed to the database's now plus the TTL");
  }

  @Test
  void claim_expiredLease_goesToAnotherServerWhichStartsAboveTheCeiling() {
    Server a = server("a", 0, 0);
    a.start();
    long lastOfA = a.generator.next();
    long ceilingOfA = table.row(0).orElseThrow().lastTimestampMs();
    Server b = server("b", 0, 0);
    b.step();
    LimitExceededException busy = assertThrows(LimitExceededException.class, b.generator::next);
    assertTrue(busy.getMessage().contains("--worker-id-range"), busy.getMessage());
    // a stops renewing (it died); its lease ends by the database's clock.
    elapse(TTL.plusMillis(1));
    b.step();
    assertEquals(0, b.leased(), "the expired worker ID is b's now");
    run(QUARANTINE, b);
    long first = b.generator.next();
    assertTrue(first > lastOfA, "b starts above what a could have issued");
    assertTrue(
        SnowflakeLayout.DEFAULT.decompose(first).timestampMs() > ceilingOfA,
        "above a's stored ceiling");
  }

  @Test
  void release_storesLastTimestampAndFreesWorker() {
    Server a = server("a", 0, 0);
    a.start();
    long last = a.generator.next();
    a.keeper.release();
    assertThrows(NoWorkerLeaseException.class, a.generator::next, "released: nothing more");
    WorkerLease row = table.row(0).orElseThrow();
    assertEquals(0, row.expiresMs(), "free at once");
    assertEquals(
        SnowflakeLayout.DEFAULT.decompose(last).timestampMs(),
        row.lastTimestampMs(),
        "the exact last timestamp, not the ceiling");
    Server b = server("b", 0, 0);
    b.step();
    assertEquals(0, b.leased(), "claimed without waiting for the TTL");
    run(QUARANTINE, b);
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
      if (s.leased() >= 0) {
        holders++;
        workers.add(s.leased());
      }
    }
    assertEquals(2, holders, "two worker IDs, two holders");
    assertEquals(Set.of(0, 1), workers, "each worker ID once");
    assertThrows(LimitExceededException.class, c.generator::next, "the third is refused");
  }

  @Test
  void renewalsFailing_stopIssuingBeforeLeaseCanHaveExpired() {
    Server a = server("a", 0, 0);
    a.start();
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
    assertTrue(
        issuedUntil < expiry,
        "the last ID (at database time "
            + issuedUntil
            + ") came before the lease could end ("
            + expiry
            + ")");
    assertTrue(
        expiry - issuedUntil >= TTL.toMillis() / 5 - 100,
        "stopped a margin early: " + (expiry - issuedUntil) + " ms");
    table.failWith(null);
    a.step();
    assertThrows(
        NoWorkerLeaseException.class,
        a.generator::next,
        "renewed only after the lease lapsed: held back as a new claim");
    run(QUARANTINE, a);
    a.generator.next();
  }

  @Test
  void pausedServer_resumesAfterWorkerTakenOver_issuesNoIdOfTheOthers() {
    Server a = server("a", 0, 1);
    a.start();
    int worker = a.worker();
    Set<Long> issued = new HashSet<>();
    issued.add(a.generator.next());
    // a is paused (no renewals, no calls) while its clocks run on: its lease ends.
    elapse(TTL.plusSeconds(1));
    Server b = server("b", worker, worker);
    b.start();
    assertEquals(worker, b.worker(), "b took a's worker ID");
    for (int i = 0; i < 1000; i++) {
      assertTrue(issued.add(b.generator.next()), "no repeat");
    }
    // a resumes: a call before its keeper runs is fenced, then the keeper finds the lease gone.
    assertThrows(NoWorkerLeaseException.class, a.generator::next, "fenced by the monotonic clock");
    a.step();
    assertNotEquals(worker, a.worker(), "a renews nothing: the worker ID is b's");
    a.step();
    assertEquals(1 - worker, a.leased(), "a claims the other free worker ID");
    run(QUARANTINE, a, b);
    assertEquals(1 - worker, a.worker(), "and issues with it after the quarantine");
    for (int i = 0; i < 1000; i++) {
      assertTrue(issued.add(a.generator.next()), "no repeat");
      assertTrue(issued.add(b.generator.next()), "no repeat");
    }
  }

  @Test
  void restart_wallClockOneHourBehind_zeroRepeatsAndKeepsAnswering() {
    Server a = server("a", 0, 0);
    a.start();
    Set<Long> issued = new HashSet<>();
    for (int i = 0; i < 100_000; i++) {
      issued.add(a.generator.next());
    }
    a.keeper.release();
    Server b = new Server("b", 0, 0, -Duration.ofHours(1).toMillis());
    servers.add(b);
    b.start();
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

  /** How a row may go back under its holder: what a restore or a lagging replica holds. */
  private enum Rewind {
    DELETED,
    ZEROED,
    EXPIRY_MOVED_BACK,
    RESTORED_OLD_ROW
  }

  private void rewind(Rewind how, int worker, WorkerLease before) {
    WorkerLease now = table.row(worker).orElseThrow();
    switch (how) {
      case DELETED -> table.rewrite(worker, null);
      case ZEROED -> table.rewrite(worker, new WorkerLease(worker, now.owner(), 0, 0));
      case EXPIRY_MOVED_BACK ->
          table.rewrite(worker, new WorkerLease(worker, now.owner(), 0, now.lastTimestampMs()));
      case RESTORED_OLD_ROW -> table.rewrite(worker, before);
    }
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.EnumSource(Rewind.class)
  void rowRewoundUnderLoadedHolder_anotherServerClaimsIt_zeroRepeats(Rewind how) {
    // A's wall clock runs 3 s ahead of B's and of the database's (a tenth of the TTL).
    Server a = new Server("a", 5, 5, 3_000);
    servers.add(a);
    a.start();
    Set<Long> issued = new HashSet<>();
    long repeats = issue(Duration.ofSeconds(5), 50, issued, a);
    // An old copy of the row, as a backup taken an hour ago holds it: released long ago.
    WorkerLease old = new WorkerLease(5, "z", 0, NOW - 3_600_000);
    rewind(how, 5, old);
    Server b = server("b", 5, 5);
    b.step();
    assertEquals(5, b.leased(), "b claims the worker ID the table shows free (" + how + ")");
    repeats += issue(QUARANTINE.plusSeconds(20), 50, issued, a, b);
    assertEquals(0, repeats, "no ID issued twice (" + how + ", " + issued.size() + " IDs)");
    assertEquals(5, b.worker(), "b issues after its quarantine");
    assertFalse(a.generator.leaseValid(), "a stopped");
    assertTrue(issued.size() > 100_000, "both issued: " + issued.size());
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.EnumSource(
      value = Rewind.class,
      names = {"ZEROED", "RESTORED_OLD_ROW"})
  void rowRewoundUnderHolder_holderStopsAtItsNextRenewal(Rewind how) {
    Server a = server("a", 5, 5);
    a.start();
    WorkerLease old = new WorkerLease(5, "a", NOW + 1_000, NOW);
    rewind(how, 5, old);
    elapse(Duration.ofNanos(a.dueNanos - a.ticker.read()));
    a.step();
    assertThrows(
        NoWorkerLeaseException.class,
        a.generator::next,
        "the row changed under a: it stops at once (" + how + ")");
    a.step();
    assertEquals(5, a.leased(), "and claims again, quarantined like any claim");
    assertThrows(NoWorkerLeaseException.class, a.generator::next, "quarantined");
  }

  @Test
  void claim_storedTimestampBeyondLayoutEnd_discardedAndWorkerIssuesAgain() {
    long glitch = SnowflakeLayout.DEFAULT.maxTimestampMs() + Duration.ofDays(400).toMillis();
    // What a holder whose clock jumped 56 years ahead stored before kill -9.
    table.rewrite(7, new WorkerLease(7, "glitched", NOW - 1, glitch));
    Server a = server("a", 7, 7);
    a.start();
    long id = a.generator.next();
    assertEquals(7, a.worker(), "the worker ID issues again");
    long ts = SnowflakeLayout.DEFAULT.decompose(id).timestampMs();
    assertTrue(ts >= NOW && ts < NOW + Duration.ofMinutes(2).toMillis(), "at the clock: " + ts);
    assertEquals(1, a.keeper.discardedFloors(), "the discarded timestamp is counted");
  }

  @Test
  void holderCutOffPastItsLease_ownOldRowRestoredAfterAnotherTookOver_zeroRepeats() {
    Server a = server("a", 5, 5);
    a.start();
    Set<Long> issued = new HashSet<>();
    long repeats = issue(Duration.ofSeconds(2), 50, issued, a);
    // A backup taken now holds a's own row; then a is cut off from the database.
    WorkerLease backup = table.row(5).orElseThrow();
    a.cutOff = true;
    repeats += issue(TTL.plusSeconds(1), 50, issued, a);
    assertFalse(a.generator.leaseValid(), "a is fenced");
    Server b = server("b", 5, 5);
    b.step();
    assertEquals(5, b.leased(), "b claims the expired worker ID");
    repeats += issue(QUARANTINE.plusSeconds(5), 50, issued, a, b);
    assertTrue(b.generator.leaseValid(), "b issues");
    // The backup is restored (or a lagging replica promoted) and a is reachable again.
    table.rewrite(5, backup);
    a.cutOff = false;
    repeats += issue(QUARANTINE.plusSeconds(20), 50, issued, a, b);
    assertEquals(0, repeats, "no ID issued twice (" + issued.size() + " IDs)");
    assertTrue(a.generator.leaseValid() || b.generator.leaseValid(), "one of them issues");
  }
}
