package io.leaf.bench;

import io.leaf.client.LeafClient;
import io.leaf.client.LocalSnowflakeIds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Row S3: one thread calling {@link LocalSnowflakeIds#next()} under a worker ID leased from the
 * bench's server, IDs/s ÷ the layout's limit for one worker (4,096,000/s; goal ≥ 0.9).
 *
 * <p>A warm-up of at least 1.5 s first spends the second IDs may borrow ahead of the clock, so the
 * rounds measure the steady rate, not the burst.
 */
final class LocalSnowflakeRow {

  private static final Duration MIN_WARMUP = Duration.ofMillis(1_500);
  private static final Duration MIN_ROUND = Duration.ofSeconds(1);
  private static final String ROW =
      "S3 LocalSnowflakeIds.next() in the client vs the layout's limit for one worker";

  private final BenchOptions options;
  private final ResultsTable table;

  LocalSnowflakeRow(BenchOptions options, ResultsTable table) {
    this.options = options;
    this.table = table;
  }

  void run(int port) throws Exception {
    Duration warmup = max(options.rounds().warmup(), MIN_WARMUP);
    Duration round = max(options.load().batch().duration(), MIN_ROUND);
    Progress.say("S3: LocalSnowflakeIds.next(), one thread, %d rounds", options.rounds().count());
    List<Double> rates = new ArrayList<>();
    try (LeafClient client =
            LeafClient.forTarget("127.0.0.1:" + port)
                .usePlaintext()
                .deadline(Duration.ofSeconds(10))
                .build();
        LocalSnowflakeIds ids = LocalSnowflakeIds.builder(client).build()) {
      if (!ids.awaitReady(Duration.ofSeconds(60))) {
        table.add(ROW, "", "", "no worker lease within 60 s");
        return;
      }
      spin(ids, warmup.toNanos());
      for (int r = 0; r < options.rounds().count(); r++) {
        long[] run = spin(ids, round.toNanos());
        rates.add(run[0] * 1e9 / run[1]);
      }
    }
    double rate = Stats.median(rates);
    table.add(
        ROW,
        "one thread calling next() for "
            + round.toMillis()
            + " ms per round after a "
            + warmup.toMillis()
            + " ms warm-up (which spends the 1 s it may borrow ahead of the clock); the worker"
            + " leased from the bench server; limit 4,096 IDs per ms (12 sequence bits) (goal ≥"
            + " 0.9)",
        String.format(Locale.ROOT, "%,.0f IDs/s", rate),
        String.format(
            Locale.ROOT, "next() ÷ 4,096,000/s = %.2f", rate / SnowflakeRows.LAYOUT_LIMIT));
  }

  /** Calls next() for {@code nanos}: IDs made, nanoseconds taken. */
  private static long[] spin(LocalSnowflakeIds ids, long nanos) {
    long start = System.nanoTime();
    long end = start + nanos;
    long count = 0;
    long now;
    do {
      for (int i = 0; i < 1_000; i++) {
        ids.next();
      }
      count += 1_000;
      now = System.nanoTime();
    } while (now - end < 0);
    return new long[] {count, now - start};
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }
}
