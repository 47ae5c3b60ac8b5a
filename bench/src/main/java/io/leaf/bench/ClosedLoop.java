package io.leaf.bench;

import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Keeps a fixed number of asynchronous unary calls in flight for a fixed time: each completion
 * starts the next call on the same slot. As with any closed loop, a server stall delays the calls
 * not yet sent instead of showing in their latency, so tail latencies are lower bounds.
 *
 * <p>Cost: one {@link System#nanoTime()} pair and one histogram record per call. Thread-safe
 * recording: completions may arrive on any transport thread.
 */
final class ClosedLoop {

  /**
   * @param calls calls completed successfully inside the window
   * @param latencyNanos latency of each of those calls
   */
  record Result(long calls, Duration window, Histogram latencyNanos) {
    double perSecond() {
      return calls * 1e9 / window.toNanos();
    }

    double micros(double percentile) {
      return latencyNanos.getValueAtPercentile(percentile) / 1_000.0;
    }
  }

  private ClosedLoop() {}

  /**
   * @param call starts one call that reports to the observer it is given
   * @throws IllegalStateException a call failed (a benchmark with errors measures nothing), or
   *     calls were still in flight a minute after the window closed
   */
  static <T> Result run(Consumer<StreamObserver<T>> call, int inFlight, Duration duration)
      throws InterruptedException {
    Recorder recorder = new Recorder(3);
    LongAdder calls = new LongAdder();
    AtomicReference<Throwable> firstError = new AtomicReference<>();
    CountDownLatch drained = new CountDownLatch(inFlight);
    long start = System.nanoTime();
    long end = start + duration.toNanos();
    for (int i = 0; i < inFlight; i++) {
      new Slot<>(call, end, recorder, calls, firstError, drained).fire();
    }
    if (!drained.await(duration.toMillis() + 60_000, TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException(
          drained.getCount()
              + " of "
              + inFlight
              + " calls still in flight a minute after the measurement window closed");
    }
    if (firstError.get() != null) {
      throw new IllegalStateException("a call failed: " + firstError.get(), firstError.get());
    }
    return new Result(calls.sum(), duration, recorder.getIntervalHistogram());
  }

  private static final class Slot<T> implements StreamObserver<T> {
    private final Consumer<StreamObserver<T>> call;
    private final long end;
    private final Recorder recorder;
    private final LongAdder calls;
    private final AtomicReference<Throwable> firstError;
    private final CountDownLatch drained;
    // Written before a call starts and read when it completes: gRPC orders the two.
    private long startedNanos;

    Slot(
        Consumer<StreamObserver<T>> call,
        long end,
        Recorder recorder,
        LongAdder calls,
        AtomicReference<Throwable> firstError,
        CountDownLatch drained) {
      this.call = call;
      this.end = end;
      this.recorder = recorder;
      this.calls = calls;
      this.firstError = firstError;
      this.drained = drained;
    }

    void fire() {
      startedNanos = System.nanoTime();
      call.accept(this);
    }

    @Override
    public void onNext(T value) {}

    @Override
    public void onError(Throwable t) {
      firstError.compareAndSet(null, t);
      drained.countDown();
    }

    @Override
    public void onCompleted() {
      completed();
    }

    private void completed() {
      long now = System.nanoTime();
      if (now - end >= 0) {
        drained.countDown();
        return;
      }
      calls.increment();
      recorder.recordValue(now - startedNanos);
      fire();
    }
  }
}
