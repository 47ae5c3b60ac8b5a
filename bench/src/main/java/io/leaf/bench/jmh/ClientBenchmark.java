package io.leaf.bench.jmh;

import io.leaf.client.CachedIdGenerator;
import io.leaf.client.LeafClient;
import java.util.concurrent.TimeUnit;
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
 * The client's cached path: {@link CachedIdGenerator#next()} of one generator shared by every
 * benchmark thread, refilled over the network from the real server whose address is in the system
 * property {@value #TARGET_PROPERTY}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ClientBenchmark {

  public static final String TARGET_PROPERTY = "leaf.bench.target";
  public static final String TAG = "bench.client";

  /** One client and one generator, as an application would hold them. */
  @State(Scope.Benchmark)
  public static class Generator {
    LeafClient client;
    CachedIdGenerator generator;

    @Setup(Level.Trial)
    public void start() {
      String target = System.getProperty(TARGET_PROPERTY);
      if (target == null) {
        throw new IllegalStateException(
            "system property " + TARGET_PROPERTY + " (host:port of a Leaf server) is not set");
      }
      client = LeafClient.forTarget(target).usePlaintext().build();
      generator = CachedIdGenerator.builder(client, TAG).build();
    }

    @TearDown(Level.Trial)
    public void stop() {
      generator.close();
      client.close();
    }
  }

  @Benchmark
  public long next(Generator state) {
    return state.generator.next();
  }
}
