package io.leaf.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.leaf.server.ledger.LedgerSettings;
import io.leaf.server.ledger.RecordedTakes;
import io.leaf.server.region.RegionFence;
import io.leaf.server.store.DataSources;
import io.leaf.server.store.JooqSegmentStore;
import io.leaf.server.store.TagAlreadyExistsException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * P11: segment loads per second with the ledger on against the ledger off, on the store itself; the
 * ratio is the median of the per-round ratios.
 *
 * <p>With the ledger on a load is the take, its {@code leaf_ledger} record and COMMIT; off, the
 * take as one autocommit statement. {@link #THREADS} threads each take segments of a tag of their
 * own, as loader threads do, on MariaDB when {@code --db-url} names one, else on an embedded H2
 * file. Each round's time is split in slices in ABBA order.
 */
final class LedgerRows {

  static final int THREADS = 4;
  private static final int SLICES = 4;
  private static final int STEP = 1000;

  private final BenchOptions options;
  private final ResultsTable table;

  LedgerRows(BenchOptions options, ResultsTable table) {
    this.options = options;
    this.table = table;
  }

  void run(String dbUrl, String user, String password) throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(THREADS);
    try (HikariDataSource pool = DataSources.create(dbUrl, user, password, THREADS + 1)) {
      var dialect = DataSources.dialectOf(dbUrl);
      JooqSegmentStore on =
          new JooqSegmentStore(
              pool,
              dialect,
              InstantSource.system(),
              new RecordedTakes(
                  LedgerSettings.on("bench:0/" + ProcessHandle.current().pid()),
                  InstantSource.system()));
      JooqSegmentStore off = new JooqSegmentStore(pool, dialect, InstantSource.system());
      on.createSchemaIfMissing();
      off.createSchemaIfMissing();
      for (int t = 0; t < THREADS; t++) {
        try {
          on.createTag(tag(t), 1, STEP, "bench: P11");
        } catch (TagAlreadyExistsException e) {
          // From an earlier run on the same database.
        }
      }
      JooqSegmentStore fenced =
          new JooqSegmentStore(pool, dialect, InstantSource.system(), RegionFence.withoutRegion());
      String workload =
          THREADS
              + " threads, each taking segments (step "
              + STEP
              + ") of a tag"
              + " of its own through JooqSegmentStore on "
              + DataSources.redact(dbUrl)
              + "; "
              + options.load().unary().duration().toMillis()
              + " ms each per round in "
              + SLICES
              + " slices, order ABBA";
      double[] ledger = compare(on, off, threads, "the ledger on and off");
      table.add(
          "P11 segment loads/s with the ledger on vs off",
          workload,
          String.format(Locale.ROOT, "%,.0f loads/s (off: %,.0f loads/s)", ledger[0], ledger[1]),
          String.format(Locale.ROOT, "on ÷ off = %.2f", ledger[2]));
      double[] fence = compare(fenced, off, threads, "the take's region check and without");
      table.add(
          "P11 segment loads/s with the take's leaf_region check vs without",
          workload + "; the ledger off in both",
          String.format(Locale.ROOT, "%,.0f loads/s (without: %,.0f loads/s)", fence[0], fence[1]),
          String.format(Locale.ROOT, "with ÷ without = %.2f", fence[2]));
    } finally {
      threads.shutdownNow();
    }
  }

  /** Medians of {@code a}'s and {@code b}'s loads/s and of their per-round ratio. */
  private double[] compare(
      JooqSegmentStore a, JooqSegmentStore b, ExecutorService threads, String what)
      throws Exception {
    rate(a, threads, options.rounds().warmup());
    rate(b, threads, options.rounds().warmup());
    List<Double> as = new ArrayList<>();
    List<Double> bs = new ArrayList<>();
    List<Double> ratios = new ArrayList<>();
    Duration slice = options.load().unary().duration().dividedBy(SLICES);
    for (int round = 0; round < options.rounds().count(); round++) {
      Progress.say("segment loads with %s, round %d", what, round + 1);
      double r = 0;
      double n = 0;
      for (int i = 0; i < SLICES; i++) {
        if ((i + round) % 4 == 0 || (i + round) % 4 == 3) {
          r += rate(a, threads, slice);
          n += rate(b, threads, slice);
        } else {
          n += rate(b, threads, slice);
          r += rate(a, threads, slice);
        }
      }
      as.add(r / SLICES);
      bs.add(n / SLICES);
      ratios.add(r / n);
    }
    return new double[] {median(as), median(bs), median(ratios)};
  }

  private static String tag(int t) {
    return "bench.ledger." + t;
  }

  private static double median(List<Double> values) {
    return Stats.median(values);
  }

  /** Segment loads per second of {@code store} over {@code duration}, all threads together. */
  private static double rate(JooqSegmentStore store, ExecutorService threads, Duration duration)
      throws Exception {
    long until = System.nanoTime() + duration.toNanos();
    long started = System.nanoTime();
    List<Future<Long>> counts = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      String tag = tag(t);
      counts.add(
          threads.submit(
              () -> {
                long n = 0;
                while (System.nanoTime() < until) {
                  store.nextSegment(tag, STEP);
                  n++;
                }
                return n;
              }));
    }
    long total = 0;
    for (Future<Long> f : counts) {
      total += f.get();
    }
    return total / ((System.nanoTime() - started) / 1e9);
  }
}
