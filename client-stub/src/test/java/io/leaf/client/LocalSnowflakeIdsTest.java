package io.leaf.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.leaf.v1.WorkerLease;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The client side of a worker lease on fake clocks: a generator and its renewer against a fake
 * server that answers as the real one does (valid for the TTL less a fifth, a quarantine on a new
 * claim or a lapsed renewal, a floor and a ceiling).
 */
class LocalSnowflakeIdsTest {

  private static final long EPOCH = 1288834974657L;
  private static final long NOW = 1_750_000_000_000L;
  private static final long TTL_MS = 30_000;
  private static final long VALID_MS = TTL_MS * 4 / 5;
  private static final long QUARANTINE_MS = TTL_MS + 1_000;

  private final AtomicLong wall = new AtomicLong(NOW);
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final LocalGenerator generator = new LocalGenerator(wall::get, nanos::get);
  private final FakeServer server = new FakeServer();
  private final WorkerLeaseRenewer renewer = new WorkerLeaseRenewer(server, generator, nanos::get);

  /** Answers like the server: a new claim or a lapsed renewal waits out the quarantine. */
  private final class FakeServer implements WorkerLeaseRenewer.Rpcs {
    int worker = 5;
    long floorMs = NOW;
    long notBeforeMs;
    Status.Code failRenewal;
    int leases;
    final List<Boolean> renewals = new ArrayList<>();

    private WorkerLease answer(long notBefore) {
      return WorkerLease.newBuilder()
          .setWorkerId(worker)
          .setLeaseId("lease-" + leases)
          .setValidForMs(VALID_MS)
          .setNotBeforeMs(notBefore)
          .setFloorMs(floorMs)
          .setCeilingMs(wall.get() + TTL_MS + 1_000)
          .setEpochMs(EPOCH)
          .setTimestampBits(41)
          .setWorkerIdBits(10)
          .setSequenceBits(12)
          .build();
    }

    @Override
    public WorkerLease lease() {
      leases++;
      return answer(notBeforeMs);
    }

    @Override
    public WorkerLease renew(String leaseId, boolean lapsed) {
      renewals.add(lapsed);
      if (failRenewal != null) {
        throw LeafException.from(failRenewal.toStatus().withDescription("refused"), null);
      }
      return answer(lapsed ? QUARANTINE_MS : 0);
    }

    @Override
    public void release(String leaseId) {}
  }

  private void elapse(long ms) {
    wall.addAndGet(ms);
    nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
  }

  /** {@code ms} pass with the renewal thread running every 8 s, as it does. */
  private void elapseRenewing(long ms) {
    for (long done = 0; done < ms; ) {
      long d = Math.min(8_000, ms - done);
      elapse(d);
      done += d;
      renewer.step();
    }
  }

  private static long timestamp(long id) {
    return (id >>> 22) + EPOCH;
  }

  @Test
  void next_renewalLate_stopsUntilRenewedAfterQuarantine() {
    renewer.step();
    long before = generator.next();
    elapse(VALID_MS - 1);
    generator.next();
    elapse(1);
    NoWorkerLeaseException e = assertThrows(NoWorkerLeaseException.class, generator::next);
    assertTrue(e.getMessage().contains("not renewed in time"), e.getMessage());
    assertEquals(Status.Code.UNAVAILABLE, e.code());
    renewer.step();
    assertEquals(List.of(true), server.renewals, "the renewal says the fence lapsed");
    e = assertThrows(NoWorkerLeaseException.class, generator::next);
    assertTrue(e.getMessage().contains("quarantined"), e.getMessage());
    elapseRenewing(QUARANTINE_MS - 1);
    assertThrows(NoWorkerLeaseException.class, generator::next);
    elapse(1);
    assertTrue(generator.next() > before);
  }

  @Test
  void next_processPausedPastLease_neverIssuesOnOldLease() {
    renewer.step();
    generator.next();
    // SIGSTOP: neither the renewal thread nor callers run; both clocks move on.
    elapse(TTL_MS * 3);
    assertThrows(NoWorkerLeaseException.class, generator::next);
    assertFalse(generator.ready());
  }

  @Test
  void next_wallClockStepsBack_neverRepeatsNorGoesBelowLastTimestamp() {
    renewer.step();
    Set<Long> ids = new HashSet<>();
    long last = -1;
    for (int i = 0; i < 20_000; i++) {
      long id = generator.next();
      assertTrue(id > last, "increasing");
      last = id;
      ids.add(id);
      if (i % 1000 == 0) {
        elapse(1);
      }
    }
    long lastTs = timestamp(last);
    wall.addAndGet(-30_000);
    for (int i = 0; i < 20_000; i++) {
      long id = generator.next();
      assertTrue(id > last, "increasing after the step back");
      assertTrue(timestamp(id) >= lastTs, "never below the last timestamp");
      last = id;
      assertTrue(ids.add(id), "no repeat: " + id);
      if (i % 1000 == 0) {
        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
      }
    }
  }

  @Test
  void next_floorAheadOfWallClock_firstIdAtOrAboveFloor() {
    server.floorMs = NOW + 20_000;
    renewer.step();
    long id = generator.next();
    assertEquals(server.floorMs, timestamp(id), "the floor, not the wall clock");
    assertEquals(5, (int) ((id >>> 12) & 1023), "the leased worker ID in its bits");
  }

  @Test
  void next_quarantinedClaim_refusedUntilItPasses() {
    server.notBeforeMs = QUARANTINE_MS;
    renewer.step();
    assertThrows(NoWorkerLeaseException.class, generator::next);
    elapseRenewing(QUARANTINE_MS - 1);
    assertThrows(NoWorkerLeaseException.class, generator::next, "timely renewals keep it");
    elapse(1);
    generator.next();
  }

  @Test
  void next_wallClockPastCeiling_refused() {
    renewer.step();
    generator.next();
    wall.addAndGet(TTL_MS + 2_000);
    NoWorkerLeaseException e = assertThrows(NoWorkerLeaseException.class, generator::next);
    assertTrue(e.getMessage().contains("covers timestamps up to"), e.getMessage());
  }

  @Test
  void step_leaseLost_revokesAtOnceAndLeasesAnotherWorker() {
    renewer.step();
    long before = generator.next();
    server.failRenewal = Status.Code.FAILED_PRECONDITION;
    assertEquals(0, renewer.step());
    assertThrows(NoWorkerLeaseException.class, generator::next);
    server.failRenewal = null;
    server.worker = 6;
    server.floorMs = wall.get() + 31_000;
    renewer.step();
    assertEquals(2, server.leases);
    long after = generator.next();
    assertEquals(6, generator.workerId());
    assertTrue(after > before);
    assertTrue(timestamp(after) >= server.floorMs);
  }

  @Test
  void step_serverAway_retriesAndStopsAtTheFence() {
    renewer.step();
    server.failRenewal = Status.Code.UNAVAILABLE;
    elapse(VALID_MS / 2);
    assertEquals(TimeUnit.SECONDS.toNanos(1), renewer.step());
    generator.next();
    elapse(VALID_MS / 2);
    assertThrows(NoWorkerLeaseException.class, generator::next);
  }

  @Test
  void next_fourThreads_noDuplicates() throws Exception {
    LocalGenerator real = new LocalGenerator(System::currentTimeMillis, System::nanoTime);
    real.grant(
        3,
        new LocalGenerator.Layout(EPOCH, 41, 10, 12),
        System.currentTimeMillis(),
        System.currentTimeMillis() + 60_000,
        System.nanoTime(),
        System.nanoTime() + TimeUnit.SECONDS.toNanos(60));
    Set<Long> all = ConcurrentHashMap.newKeySet();
    List<Thread> threads = new ArrayList<>();
    AtomicLong dups = new AtomicLong();
    for (int t = 0; t < 4; t++) {
      Thread thread =
          new Thread(
              () -> {
                for (int i = 0; i < 100_000; i++) {
                  if (!all.add(real.next())) {
                    dups.incrementAndGet();
                  }
                }
              });
      threads.add(thread);
      thread.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    assertEquals(0, dups.get());
    assertEquals(400_000, all.size());
  }
}
