package io.leaf.bench;

import io.leaf.bench.jmh.ClientBenchmark;
import io.leaf.bench.jmh.EngineBenchmark;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The in-process rows: JMH on the engine's ID path and on the client's cache (P4), and the heap a
 * cached tag costs, each measured in a JVM of its own.
 */
final class EngineRows {

  private final BenchOptions options;
  private final ResultsTable table;

  EngineRows(BenchOptions options, ResultsTable table) {
    this.options = options;
    this.table = table;
  }

  void jmhRows(int plainPort, double unaryNextId, int unaryConcurrency) throws Exception {
    JmhRuns jmh = new JmhRuns(options);
    Map<Integer, Double> allocatorByThreads = new TreeMap<>();
    for (int threads : List.of(1, 2)) {
      Progress.say("JMH: SegmentAllocator.nextId, %s", threads(threads));
      double allocator = Stats.median(jmh.run(EngineBenchmark.class, "allocatorNextId", threads));
      Progress.say("JMH: AtomicLong.incrementAndGet, %s", threads(threads));
      double atomic = Stats.median(jmh.run(EngineBenchmark.class, "atomicIncrement", threads));
      allocatorByThreads.put(threads, allocator);
      table.add(
          "P4 SegmentAllocator.nextId vs AtomicLong, " + threads(threads),
          jmh.describe()
              + ", "
              + threads(threads)
              + " on one shared allocator (in-memory store, "
              + "step "
              + fmt(EngineBenchmark.STEP)
              + ") / one shared AtomicLong",
          String.format(
              Locale.ROOT,
              "allocator %,.1f M ops/s · AtomicLong %,.1f M ops/s",
              allocator / 1e6,
              atomic / 1e6),
          String.format(Locale.ROOT, "allocator ÷ AtomicLong = %.2f", allocator / atomic));
    }
    clientRows(plainPort, allocatorByThreads, unaryNextId, unaryConcurrency);
  }

  /**
   * {@link io.leaf.client.CachedIdGenerator#next()} on ranges reserved over loopback, against
   * {@code AtomicLong.incrementAndGet} measured just before it, 1 and 2 threads.
   *
   * @param allocatorByThreads the P4 allocator rows' figures; null when they did not run
   */
  void clientRows(
      int plainPort,
      Map<Integer, Double> allocatorByThreads,
      double unaryNextId,
      int unaryConcurrency)
      throws Exception {
    JmhRuns jmh = new JmhRuns(options);
    String target = "-D" + ClientBenchmark.TARGET_PROPERTY + "=127.0.0.1:" + plainPort;
    for (int threads : List.of(1, 2)) {
      Progress.say("JMH: AtomicLong.incrementAndGet, %s", threads(threads));
      double atomic = Stats.median(jmh.run(EngineBenchmark.class, "atomicIncrement", threads));
      Progress.say("JMH: CachedIdGenerator.next, %s", threads(threads));
      double client = Stats.median(jmh.run(ClientBenchmark.class, "next", threads, target));
      String others =
          allocatorByThreads == null
              ? ""
              : String.format(
                  Locale.ROOT,
                  "; ÷ SegmentAllocator = %.2f; ÷ unary NextId (P1, %d in flight) = %,.0f",
                  client / allocatorByThreads.get(threads),
                  unaryConcurrency,
                  client / unaryNextId);
      table.add(
          "P5 CachedIdGenerator.next() vs AtomicLong, " + threads(threads),
          jmh.describe()
              + ", "
              + threads(threads)
              + " on one generator (builder defaults) of one"
              + " LeafClient, refilled with ReserveIds over loopback from the real server, tag"
              + " step "
              + fmt(options.load().latency().largeStep())
              + " / one shared AtomicLong (goal ≥ 0.5 on 1"
              + " thread)",
          String.format(
              Locale.ROOT, "%,.1f M ops/s · AtomicLong %,.1f M ops/s", client / 1e6, atomic / 1e6),
          String.format(Locale.ROOT, "generator ÷ AtomicLong = %.2f", client / atomic) + others);
    }
  }

  private static String threads(int n) {
    return n == 1 ? "1 thread" : n + " threads";
  }

  void heapRow() throws IOException, InterruptedException {
    List<String> jvmArgs = List.of("-XX:+UseSerialGC", "-Xmx1g");
    Progress.say(
        "heap JVM: %,d tags × %d rounds", options.load().heapTags(), options.rounds().count());
    List<Map<String, String>> heap =
        ChildJvm.run(
            jvmArgs,
            HeapPerTag.class,
            List.of(
                Integer.toString(options.load().heapTags()),
                Integer.toString(options.rounds().count())),
            600);
    table.add(
        "Heap per cached tag",
        fmt(options.load().heapTags())
            + " tags each loaded once (InitCache) into a SegmentAllocator on an"
            + " in-memory store, step "
            + fmt(HeapPerTag.STEP)
            + ", every buffer in an"
            + " IdleTagSweeper's wheel (idle-ttl "
            + HeapPerTag.SERVER_DEFAULTS.segments().sweep().idleTtl().toMinutes()
            + " min, tick "
            + HeapPerTag.SERVER_DEFAULTS.segments().sweep().tick().toSeconds()
            + " s); used heap"
            + " after 3× System.gc(), before and after; separate JVM "
            + String.join(" ", jvmArgs),
        String.format(
            Locale.ROOT,
            "%,.0f bytes per tag",
            Stats.median(
                LoadResults.values(LoadResults.select(heap, "heap", r -> true), "bytesPerTag"))),
        "—");
  }

  private static String fmt(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }
}
