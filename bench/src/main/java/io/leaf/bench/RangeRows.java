package io.leaf.bench;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.NextIdResponse;
import io.leaf.v1.ReserveIdsRequest;
import io.leaf.v1.ReservedIds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The ID-range row: ReserveIds' IDs per second against unary NextId calls per second, both over
 * loopback to the same server, the one from the client in the bench JVM.
 */
final class RangeRows {

  static final String RESERVE_TAG = "bench.reserve";

  /** The server's default {@code --max-batch}: the largest reservation one call may ask for. */
  static final int RESERVE_COUNT = 10_000_000;

  private final BenchOptions options;
  private final ResultsTable table;

  RangeRows(BenchOptions options, ResultsTable table) {
    this.options = options;
    this.table = table;
  }

  /**
   * ReserveIds of {@link #RESERVE_COUNT}, one call after another, for the P2 duration per round.
   *
   * @param unaryNextId unary NextId calls per second at {@code concurrency} in flight
   */
  void reserveRow(BenchServer server, double unaryNextId, int concurrency) throws Exception {
    server.ensureTag(RESERVE_TAG, options.load().latency().largeStep());
    ManagedChannel channel = channel(server);
    try {
      LeafServiceGrpc.LeafServiceBlockingStub stub = LeafServiceGrpc.newBlockingStub(channel);
      ReserveIdsRequest request =
          ReserveIdsRequest.newBuilder().setBizTag(RESERVE_TAG).setCount(RESERVE_COUNT).build();
      runFor(
          options.rounds().warmup(),
          () -> stub.withDeadlineAfter(10, TimeUnit.SECONDS).reserveIds(request));
      List<Double> rates = new ArrayList<>();
      for (int round = 0; round < options.rounds().count(); round++) {
        Progress.say("ReserveIds of %,d, round %d", RESERVE_COUNT, round + 1);
        long[] ids = {0};
        long nanos =
            runFor(
                options.load().batch().duration(),
                () -> {
                  ReservedIds r = stub.withDeadlineAfter(10, TimeUnit.SECONDS).reserveIds(request);
                  r.getRangesList().forEach(x -> ids[0] += x.getEnd() - x.getStart());
                });
        rates.add(ids[0] * 1e9 / nanos);
      }
      double reserve = Stats.median(rates);
      table.add(
          "P6 ReserveIds vs unary NextId",
          "count "
              + fmt(RESERVE_COUNT)
              + " per call, calls one after another on a blocking stub"
              + " for "
              + options.load().batch().duration().toMillis()
              + " ms per round (each reply a few"
              + " ranges, most IDs from one dedicated database write); unary = NextId at "
              + concurrency
              + " in flight; tag step "
              + fmt(options.load().latency().largeStep())
              + " (goal ≥ 10,000x)",
          String.format(Locale.ROOT, "%,.0f IDs/s (unary %,.0f IDs/s)", reserve, unaryNextId),
          String.format(Locale.ROOT, "ReserveIds ÷ unary = %,.0f", reserve / unaryNextId));
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  /** Unary NextId calls per second with {@code inFlight} async calls outstanding (median). */
  double unaryNextId(BenchServer server, int inFlight) throws Exception {
    server.ensureTag(RESERVE_TAG, options.load().latency().largeStep());
    ManagedChannel channel = channel(server);
    try {
      LeafServiceGrpc.LeafServiceStub stub = LeafServiceGrpc.newStub(channel);
      NextIdRequest request = NextIdRequest.newBuilder().setBizTag(RESERVE_TAG).build();
      ClosedLoop.<NextIdResponse>run(
          o -> stub.withDeadlineAfter(10, TimeUnit.SECONDS).nextId(request, o),
          inFlight,
          options.rounds().warmup());
      List<Double> rates = new ArrayList<>();
      for (int round = 0; round < options.rounds().count(); round++) {
        Progress.say("unary NextId, %d in flight, round %d", inFlight, round + 1);
        rates.add(
            ClosedLoop.<NextIdResponse>run(
                    o -> stub.withDeadlineAfter(10, TimeUnit.SECONDS).nextId(request, o),
                    inFlight,
                    options.load().unary().duration())
                .perSecond());
      }
      return Stats.median(rates);
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  /** Runs {@code call} back to back for at least {@code duration}; returns the nanoseconds. */
  private static long runFor(Duration duration, Runnable call) {
    long start = System.nanoTime();
    long end = start + duration.toNanos();
    do {
      call.run();
    } while (System.nanoTime() < end);
    return System.nanoTime() - start;
  }

  private static ManagedChannel channel(BenchServer server) {
    return ManagedChannelBuilder.forAddress("127.0.0.1", server.port())
        .usePlaintext()
        .directExecutor()
        .build();
  }

  private static String fmt(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }
}
