package io.leaf.bench.jmh;

import io.leaf.server.engine.CoarseTicker;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.threads.ServerThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The server's in-process ID path against its floor: {@link SegmentAllocator#nextId} on a store
 * that costs nothing, against one shared {@link AtomicLong#incrementAndGet()}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class EngineBenchmark {

  public static final String TAG = "jmh";
  public static final int STEP = 1_000_000;
  private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);

  /** One allocator shared by every benchmark thread, as the server shares one. */
  @State(Scope.Benchmark)
  public static class Allocator {
    SegmentAllocator allocator;
    CoarseTicker ticker;

    /** The threads the engine and the ticker run on, as the server makes them. */
    final List<ExecutorService> threads = new ArrayList<>();

    @Setup(Level.Trial)
    public void start() {
      MemorySegmentStore store = new MemorySegmentStore();
      store.createTag(TAG, 1, STEP, "");
      // The server's own clock: a coarse ticker, so an ID costs no clock call.
      ScheduledExecutorService tick = Executors.newSingleThreadScheduledExecutor();
      threads.add(tick);
      ticker = new CoarseTicker(Duration.ofMillis(1), tick);
      EngineConfig config = EngineConfig.DEFAULTS.withMaxStep(STEP);
      allocator =
          new SegmentAllocator(
              store, ticker, config, ServerThreads.engineThreads(config, threads::add));
      allocator.initCache(TAG, allocator.deadline(TIMEOUT_NANOS, false)).join();
    }

    @TearDown(Level.Trial)
    public void stop() {
      allocator.close();
      ticker.close();
      threads.forEach(ExecutorService::shutdownNow);
    }
  }

  /** One counter shared by every benchmark thread: the contended floor. */
  @State(Scope.Benchmark)
  public static class Counter {
    final AtomicLong value = new AtomicLong();
  }

  /** The server's NextId path: the lock-free take, and the waiting path when it finds none. */
  @Benchmark
  public long allocatorNextId(Allocator state) {
    SegmentAllocator allocator = state.allocator;
    long id = allocator.tryNextId(TAG);
    if (id != SegmentAllocator.NO_ID) {
      return id;
    }
    return allocator.nextId(TAG, allocator.deadline(TIMEOUT_NANOS, false)).join();
  }

  @Benchmark
  public long atomicIncrement(Counter state) {
    return state.value.incrementAndGet();
  }
}
