package io.leaf.bench;

import com.google.common.base.Ticker;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.engine.EngineListeners;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.sweep.IdleTagSweeper;
import io.leaf.server.sweep.SweepIntake;
import io.leaf.server.threads.ServerThreads;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Heap one cached tag costs the server: the growth of the used heap (after full collections) over N
 * tags loaded once each, divided by N.
 *
 * <p>The tags are loaded into a {@link SegmentAllocator} on a {@link MemorySegmentStore}, with an
 * {@link IdleTagSweeper} holding every buffer in its wheel as the server's does. Run in its own JVM
 * so that nothing else allocates meanwhile.
 *
 * <p>Each tag name is built afresh for its load, as a request would carry it, so the name the
 * server keeps counts; the store's rows are created before the first reading and do not.
 */
public final class HeapPerTag {

  static final int STEP = 1_000;
  static final ServerConfig SERVER_DEFAULTS = ServerConfig.parse(new String[0], env -> null);
  private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

  private HeapPerTag() {}

  /** {@code <tags> <rounds>} */
  public static void main(String[] args) throws Exception {
    int tags = Integer.parseInt(args[0]);
    int rounds = Integer.parseInt(args[1]);
    for (int round = 1; round <= rounds; round++) {
      double perTag = measure(tags);
      Progress.say(
          "heap round %d/%d: %,.0f bytes per cached tag (%,d tags)", round, rounds, perTag, tags);
      System.out.println(
          ResultLine.format(
              "measure", "heap", "round", round, "tags", tags, "bytesPerTag", perTag));
    }
  }

  static double measure(int tags) throws InterruptedException {
    MemorySegmentStore store = new MemorySegmentStore();
    for (int i = 0; i < tags; i++) {
      store.createTag(name(i), 1, STEP, "");
    }
    SweepIntake intake = new SweepIntake();
    List<ExecutorService> threads = new ArrayList<>();
    SegmentAllocator allocator =
        new SegmentAllocator(
            store,
            Ticker.systemTicker(),
            EngineConfig.DEFAULTS,
            ServerThreads.engineThreads(EngineConfig.DEFAULTS, threads::add),
            EngineListeners.NONE.withOnCached(intake));
    // The server's defaults; the sweeper is not started (its scheduler never makes a thread),
    // runOnce below does its work.
    IdleTagSweeper sweeper =
        new IdleTagSweeper(
            allocator,
            intake,
            SERVER_DEFAULTS.segments().sweep().idleTtl(),
            SERVER_DEFAULTS.segments().sweep().tick(),
            ServerThreads.idleSweeper());
    try {
      long before = usedAfterGc();
      long timeout = TimeUnit.SECONDS.toNanos(10);
      for (int i = 0; i < tags; i++) {
        allocator.initCache(name(i), allocator.deadline(timeout, false)).join();
      }
      sweeper.runOnce(allocator.ticker().read());
      if (allocator.cachedCount() != tags || sweeper.scheduled() != tags) {
        throw new IllegalStateException(
            "cached "
                + allocator.cachedCount()
                + " and scheduled "
                + sweeper.scheduled()
                + " of "
                + tags
                + " tags");
      }
      long after = usedAfterGc();
      Reference.reachabilityFence(sweeper);
      Reference.reachabilityFence(store);
      return (after - before) / (double) tags;
    } finally {
      sweeper.close();
      allocator.close();
      threads.forEach(ExecutorService::shutdownNow);
    }
  }

  private static String name(int i) {
    return "tag-" + i;
  }

  static long usedAfterGc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(100);
    }
    return MEMORY.getHeapMemoryUsage().getUsed();
  }
}
