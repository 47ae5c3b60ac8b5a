package io.leaf.bench;

import io.leaf.bench.jmh.CacheBenchmark;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The client-cache row (P7): {@link io.leaf.client.CachedIdGenerator#next()} against CosId's
 * SegmentChainId and {@code AtomicLong.incrementAndGet}, all refilled in memory, 1 and 2 threads.
 */
final class CacheRows {

  private final BenchOptions options;
  private final ResultsTable table;

  CacheRows(BenchOptions options, ResultsTable table) {
    this.options = options;
    this.table = table;
  }

  void run() throws Exception {
    JmhRuns jmh = new JmhRuns(options);
    for (int threads : List.of(1, 2)) {
      String t = threads == 1 ? "1 thread" : threads + " threads";
      // The order alternates with the thread count, so neither cache always runs first.
      List<String> order =
          threads % 2 == 1
              ? List.of("atomicLong", "generator", "cosId")
              : List.of("cosId", "generator", "atomicLong");
      double atomic = 0;
      double generator = 0;
      double cosId = 0;
      for (String method : order) {
        Progress.say("JMH: CacheBenchmark.%s, %s", method, t);
        double score = Stats.median(jmh.run(CacheBenchmark.class, method, threads));
        switch (method) {
          case "atomicLong" -> atomic = score;
          case "generator" -> generator = score;
          default -> cosId = score;
        }
      }
      table.add(
          "P7 CachedIdGenerator.next() vs CosId SegmentChainId vs AtomicLong, " + t,
          jmh.describe()
              + ", "
              + t
              + " on one shared instance each, in order "
              + String.join(", ", order)
              + ": the generator refilled by ReserveIds from an"
              + " in-memory service over gRPC's in-process transport (max block "
              + fmt(CacheBenchmark.BLOCK)
              + "); CosId "
              + cosIdVersion()
              + " SegmentChainId on"
              + " its in-memory IdSegmentDistributor.Atomic, step "
              + fmt(CacheBenchmark.BLOCK)
              + "; one shared AtomicLong (goal ≥ 1.0 ÷ CosId, ≥ 0.9 ÷ AtomicLong)",
          String.format(
              Locale.ROOT,
              "generator %,.1f M ops/s · CosId %,.1f M ops/s · AtomicLong" + " %,.1f M ops/s",
              generator / 1e6,
              cosId / 1e6,
              atomic / 1e6),
          String.format(
              Locale.ROOT,
              "generator ÷ CosId = %.2f; ÷ AtomicLong = %.2f",
              generator / cosId,
              generator / atomic));
    }
  }

  /** CosId's jar names its version (its manifest does not), e.g. {@code cosid-core-2.13.3.jar}. */
  private static String cosIdVersion() {
    try {
      String jar =
          Path.of(
                  me.ahoo.cosid.segment.SegmentChainId.class
                      .getProtectionDomain()
                      .getCodeSource()
                      .getLocation()
                      .toURI())
              .getFileName()
              .toString();
      return jar.startsWith("cosid-core-") && jar.endsWith(".jar")
          ? jar.substring("cosid-core-".length(), jar.length() - ".jar".length())
          : "(cosid-core)";
    } catch (RuntimeException | java.net.URISyntaxException e) {
      return "(cosid-core)";
    }
  }

  private static String fmt(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }
}
