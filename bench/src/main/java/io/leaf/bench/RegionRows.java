package io.leaf.bench;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.NextIdResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The regions row: unary NextId calls per second of a server started with {@code --region 1/2}
 * against the same server without it; the ratio is the median of the per-round ratios.
 *
 * <p>Each server runs on an embedded H2 file of its own (a region's database records its region, so
 * the two cannot share one), measured in short slices of alternating order within each round.
 */
final class RegionRows {

  static final String TAG = "bench.region";
  static final String REGION = "1/2";

  /** Each round's time per server, in this many alternating slices. */
  private static final int SLICES = 4;

  private final BenchOptions options;
  private final ResultsTable table;

  RegionRows(BenchOptions options, ResultsTable table) {
    this.options = options;
    this.table = table;
  }

  /** Measures at {@code inFlight} calls outstanding, with databases under {@code dir}. */
  void run(Path dir, int inFlight) throws Exception {
    try (BenchServer plain =
            BenchServer.start(
                h2(dir, "region-none"),
                "sa",
                "",
                Duration.ZERO,
                options.load().latency().largeStep());
        BenchServer regional =
            BenchServer.start(
                h2(dir, "region-1-of-2"),
                "sa",
                "",
                Duration.ZERO,
                options.load().latency().largeStep(),
                "--region",
                REGION)) {
      plain.ensureTag(TAG, options.load().latency().largeStep());
      regional.ensureTag(TAG, options.load().latency().largeStep());
      ManagedChannel toPlain = channel(plain);
      ManagedChannel toRegional = channel(regional);
      try {
        LeafServiceGrpc.LeafServiceStub a = LeafServiceGrpc.newStub(toPlain);
        LeafServiceGrpc.LeafServiceStub b = LeafServiceGrpc.newStub(toRegional);
        rate(a, inFlight, options.rounds().warmup());
        rate(b, inFlight, options.rounds().warmup());
        List<Double> with = new ArrayList<>();
        List<Double> without = new ArrayList<>();
        List<Double> ratios = new ArrayList<>();
        for (int round = 0; round < options.rounds().count(); round++) {
          Progress.say(
              "NextId with --region %s and without, %d in flight, round %d",
              REGION, inFlight, round + 1);
          // Short slices in ABBA order: a change in the machine's load hits both alike.
          Duration slice = options.load().unary().duration().dividedBy(SLICES);
          double r = 0;
          double n = 0;
          for (int i = 0; i < SLICES; i++) {
            if ((i + round) % 4 == 0 || (i + round) % 4 == 3) {
              r += rate(b, inFlight, slice);
              n += rate(a, inFlight, slice);
            } else {
              n += rate(a, inFlight, slice);
              r += rate(b, inFlight, slice);
            }
          }
          r /= SLICES;
          n /= SLICES;
          with.add(r);
          without.add(n);
          ratios.add(r / n);
        }
        table.add(
            "P10 unary NextId with --region vs without",
            "two servers alike but for --region "
                + REGION
                + ", each on an embedded H2 file of"
                + " its own; unary NextId at "
                + inFlight
                + " in flight, "
                + options.load().unary().duration().toMillis()
                + " ms each per round in "
                + SLICES
                + " slices, order ABBA;"
                + " tag step "
                + String.format(Locale.ROOT, "%,d", options.load().latency().largeStep())
                + " (goal ≥ 0.95)",
            String.format(
                Locale.ROOT,
                "%,.0f calls/s (without: %,.0f calls/s)",
                Stats.median(with),
                Stats.median(without)),
            String.format(Locale.ROOT, "--region ÷ without = %.2f", Stats.median(ratios)));
      } finally {
        toPlain.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        toRegional.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  private static double rate(LeafServiceGrpc.LeafServiceStub stub, int inFlight, Duration duration)
      throws Exception {
    NextIdRequest request = NextIdRequest.newBuilder().setBizTag(TAG).build();
    return ClosedLoop.<NextIdResponse>run(
            o -> stub.withDeadlineAfter(10, TimeUnit.SECONDS).nextId(request, o),
            inFlight,
            duration)
        .perSecond();
  }

  private static String h2(Path dir, String name) {
    return "jdbc:h2:file:" + dir.resolve(name) + ";MODE=MySQL";
  }

  private static ManagedChannel channel(BenchServer server) {
    return ManagedChannelBuilder.forAddress("127.0.0.1", server.port())
        .usePlaintext()
        .directExecutor()
        .build();
  }
}
