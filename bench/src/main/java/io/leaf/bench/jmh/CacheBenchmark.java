package io.leaf.bench.jmh;

import io.leaf.client.CachedIdGenerator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import me.ahoo.cosid.segment.IdSegmentDistributor;
import me.ahoo.cosid.segment.SegmentChainId;
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
 * A client-side ID cache against its floor and its reference, each shared by every benchmark thread
 * and refilled in memory so only the cache is measured.
 *
 * <p>The three: {@link CachedIdGenerator#next()} on ReserveIds answered by {@link
 * InMemoryReserveService}, CosId's {@link SegmentChainId#generate()} on its in-memory {@link
 * IdSegmentDistributor.Atomic}, and {@link AtomicLong#incrementAndGet()}. Both caches take blocks
 * of {@value #BLOCK} IDs (the generator's largest reservation, which its sizing reaches within the
 * warm-up at these rates; CosId's step).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class CacheBenchmark {

  public static final int BLOCK = 1_000_000;
  static final String TAG = "bench.cache";

  /** One generator on one client, as an application would hold them. */
  @State(Scope.Benchmark)
  public static class Generator {
    InMemoryReserveService service;
    CachedIdGenerator generator;

    @Setup(Level.Trial)
    public void start() throws Exception {
      service = new InMemoryReserveService();
      generator = CachedIdGenerator.builder(service.client(), TAG).maxBlockSize(BLOCK).build();
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
      generator.close();
      service.close();
    }
  }

  /** One SegmentChainId with CosId's default prefetching. */
  @State(Scope.Benchmark)
  public static class CosId {
    SegmentChainId id;

    @Setup(Level.Trial)
    public void start() {
      id = new SegmentChainId(new IdSegmentDistributor.Atomic(BLOCK));
    }
  }

  /** One counter: the contended floor. */
  @State(Scope.Benchmark)
  public static class Counter {
    final AtomicLong value = new AtomicLong();
  }

  @Benchmark
  public long generator(Generator state) {
    return state.generator.next();
  }

  @Benchmark
  public long cosId(CosId state) {
    return state.id.generate();
  }

  @Benchmark
  public long atomicLong(Counter state) {
    return state.value.incrementAndGet();
  }
}
