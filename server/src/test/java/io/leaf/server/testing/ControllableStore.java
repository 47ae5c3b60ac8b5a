package io.leaf.server.testing;

import io.leaf.server.store.ForwardingSegmentStore;
import io.leaf.server.store.SegmentRange;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.StoreUnavailableException;
import io.leaf.server.store.TagRecord;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * A {@link SegmentStore} that forwards to a real one but can be told to fail or block its segment
 * loads, and records every load it served.
 */
public final class ControllableStore extends ForwardingSegmentStore {

  private volatile boolean failing;
  private volatile RuntimeException failure;
  private final AtomicReference<CountDownLatch> gate = new AtomicReference<>();
  private volatile Predicate<String> blocked = t -> true;
  private final AtomicReference<CountDownLatch> readGate = new AtomicReference<>();
  private final Semaphore readEntered = new Semaphore(0);
  private final Semaphore entered = new Semaphore(0);
  private final AtomicInteger loads = new AtomicInteger();
  private final AtomicInteger attempts = new AtomicInteger();
  private final List<SegmentRange> served = Collections.synchronizedList(new ArrayList<>());
  private final List<Integer> requestedSteps = Collections.synchronizedList(new ArrayList<>());

  public ControllableStore(SegmentStore delegate) {
    super(delegate);
  }

  /** Segment loads fail with an outage until {@link #heal()}. */
  public void failLoads() {
    failing = true;
  }

  /** Segment loads throw {@code e} until {@link #heal()}. */
  public void failLoadsWith(RuntimeException e) {
    failure = e;
  }

  public void heal() {
    failing = false;
    failure = null;
  }

  /** Segment loads block until {@link #release()}; {@link #awaitLoadEntered} counts from here. */
  public void blockLoads() {
    blockLoadsOf(null);
  }

  /** Like {@link #blockLoads()} for the loads of {@code bizTag} only (null: every tag). */
  public void blockLoadsOf(String bizTag) {
    blockLoadsWhere(t -> bizTag == null || bizTag.equals(t));
  }

  /** Like {@link #blockLoads()} for the loads of every tag but {@code bizTag}. */
  public void blockLoadsExcept(String bizTag) {
    blockLoadsWhere(t -> !bizTag.equals(t));
  }

  private void blockLoadsWhere(Predicate<String> which) {
    blocked = which;
    entered.drainPermits();
    gate.set(new CountDownLatch(1));
  }

  /**
   * {@link #getTag} blocks until {@link #release()}; {@link #awaitReadEntered} counts from here.
   */
  public void blockReads() {
    readEntered.drainPermits();
    readGate.set(new CountDownLatch(1));
  }

  /** Waits until a {@link #getTag} has entered the store (blocked or not). */
  public boolean awaitReadEntered(long timeoutMillis) throws InterruptedException {
    return readEntered.tryAcquire(timeoutMillis, TimeUnit.MILLISECONDS);
  }

  /** Releases blocked loads and reads. */
  public void release() {
    for (CountDownLatch g : List.of(gateOf(gate), gateOf(readGate))) {
      g.countDown();
    }
  }

  private static CountDownLatch gateOf(AtomicReference<CountDownLatch> ref) {
    CountDownLatch g = ref.getAndSet(null);
    return g == null ? new CountDownLatch(0) : g;
  }

  @Override
  public Optional<TagRecord> getTag(String bizTag) {
    readEntered.release();
    await(readGate.get());
    return super.getTag(bizTag);
  }

  private static void await(CountDownLatch g) {
    if (g == null) {
      return;
    }
    try {
      // Bounded: a test that fails before release() must not leave a loader thread stuck.
      if (!g.await(60, TimeUnit.SECONDS)) {
        throw new StoreUnavailableException(
            "database unavailable: the test never released" + " this blocked call within 60 s",
            null);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException("database unavailable: interrupted", e);
    }
  }

  /** Waits until a segment load has entered the store (blocked or not). */
  public boolean awaitLoadEntered(long timeoutMillis) throws InterruptedException {
    return entered.tryAcquire(timeoutMillis, TimeUnit.MILLISECONDS);
  }

  public int loads() {
    return loads.get();
  }

  public int attempts() {
    return attempts.get();
  }

  public List<SegmentRange> served() {
    synchronized (served) {
      return List.copyOf(served);
    }
  }

  public List<Integer> requestedSteps() {
    synchronized (requestedSteps) {
      return List.copyOf(requestedSteps);
    }
  }

  /** While {@link #failLoads()} holds, the database does not answer pings either. */
  @Override
  public void ping() {
    if (failing) {
      throw new StoreUnavailableException(
          "database unavailable: connection refused (test outage)", null);
    }
    super.ping();
  }

  @Override
  public SegmentRange nextSegment(String bizTag, int step) {
    return controlled(bizTag, step, () -> delegate().nextSegment(bizTag, step));
  }

  /** ReserveIds' writes are blocked and failed as segment loads are, and keep their kind. */
  @Override
  public SegmentRange reserveRange(String bizTag, int count) {
    return controlled(bizTag, count, () -> delegate().reserveRange(bizTag, count));
  }

  private SegmentRange controlled(
      String bizTag, int step, java.util.function.Supplier<SegmentRange> write) {
    attempts.incrementAndGet();
    requestedSteps.add(step);
    entered.release();
    CountDownLatch g = gate.get();
    if (g != null && blocked.test(bizTag)) {
      await(g);
    }
    RuntimeException f = failure;
    if (f != null) {
      throw f;
    }
    if (failing) {
      throw new StoreUnavailableException(
          "database unavailable: connection refused (test outage)", null);
    }
    SegmentRange r = write.get();
    loads.incrementAndGet();
    served.add(r);
    return r;
  }
}
