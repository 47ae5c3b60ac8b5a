package io.leaf.bench;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.leaf.v1.IdBatch;
import io.leaf.v1.InitCacheRequest;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.NextIdResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The client side of P1–P3, run in its own JVM so that client and server do not share a heap, a JIT
 * or a garbage collector: prints progress, and one {@link ResultLine} per measurement.
 *
 * <p>Every call of a measurement goes through one Netty channel with a direct executor (responses
 * are handled on the transport thread, no hand-off), the same for every call type compared.
 */
public final class LoadGenerator {

  static final String UNARY_TAG = "bench.unary";
  static final String BATCH_TAG = "bench.batch";
  static final String SMALL_STEP_TAG = "bench.latency.small";
  static final String LARGE_STEP_TAG = "bench.latency.large";

  /** P3's baseline: step 100 on a server whose loads have no added delay. */
  static final String UNDELAYED_TAG = "bench.latency.undelayed";

  private static final int WARMUP_IN_FLIGHT = 8;
  private static final HealthCheckRequest CHECK = HealthCheckRequest.getDefaultInstance();

  private final BenchOptions options;
  private final ManagedChannel plain;
  private final ManagedChannel delayed;
  private final ManagedChannel undelayed;

  private LoadGenerator(
      BenchOptions options,
      ManagedChannel plain,
      ManagedChannel delayed,
      ManagedChannel undelayed) {
    this.options = options;
    this.plain = plain;
    this.delayed = delayed;
    this.undelayed = undelayed;
  }

  /**
   * {@code <port of the plain server> <port of the delayed server> <port of the small-step server
   * without delay> <bench flags>...}
   */
  public static void main(String[] args) throws Exception {
    BenchOptions options = BenchOptions.parse(Arrays.copyOfRange(args, 3, args.length));
    ManagedChannel plain = channel(Integer.parseInt(args[0]));
    ManagedChannel delayed = channel(Integer.parseInt(args[1]));
    ManagedChannel undelayed = channel(Integer.parseInt(args[2]));
    try {
      new LoadGenerator(options, plain, delayed, undelayed).run();
    } finally {
      plain.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      delayed.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      undelayed.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static ManagedChannel channel(int port) {
    return Grpc.newChannelBuilderForAddress("127.0.0.1", port, InsecureChannelCredentials.create())
        .directExecutor()
        .build();
  }

  private void run() throws InterruptedException {
    // With --only latency, P3 alone (P1 and P2 need the rest of the run to mean anything).
    boolean all = options.rows().only().isEmpty();
    warmUp(all);
    for (int round = 1; round <= options.rounds().count(); round++) {
      if (all) {
        unary(round);
        batches(round);
      }
      latency(round);
    }
  }

  private void warmUp(boolean all) throws InterruptedException {
    Progress.say(
        "warm-up: %d ms each of Check, NextId, NextIdBatch and both latency tags",
        options.rounds().warmup().toMillis());
    LeafServiceGrpc.LeafServiceBlockingStub delayedBlocking =
        LeafServiceGrpc.newBlockingStub(delayed);
    delayedBlocking.initCache(InitCacheRequest.newBuilder().setBizTag(SMALL_STEP_TAG).build());
    delayedBlocking.initCache(InitCacheRequest.newBuilder().setBizTag(LARGE_STEP_TAG).build());
    LeafServiceGrpc.newBlockingStub(undelayed)
        .initCache(InitCacheRequest.newBuilder().setBizTag(UNDELAYED_TAG).build());
    if (all) {
      unaryLoop(plain, UNARY_TAG, WARMUP_IN_FLIGHT, options.rounds().warmup());
      checkLoop(WARMUP_IN_FLIGHT, options.rounds().warmup());
    }
    unaryLoop(delayed, SMALL_STEP_TAG, WARMUP_IN_FLIGHT, options.rounds().warmup());
    unaryLoop(delayed, LARGE_STEP_TAG, WARMUP_IN_FLIGHT, options.rounds().warmup());
    unaryLoop(undelayed, UNDELAYED_TAG, WARMUP_IN_FLIGHT, options.rounds().warmup());
    long until = System.nanoTime() + options.rounds().warmup().toNanos();
    while (all && System.nanoTime() < until) {
      stream(options.load().batch().chunks().get(0));
    }
  }

  /** P1: NextId against Check at each concurrency; the order alternates between rounds. */
  private void unary(int round) throws InterruptedException {
    for (int c : options.load().unary().concurrencies()) {
      boolean checkFirst = round % 2 == 1;
      double check = 0;
      double nextId;
      if (checkFirst) {
        check = checkLoop(c, options.load().unary().duration()).perSecond();
      }
      nextId = unaryLoop(plain, UNARY_TAG, c, options.load().unary().duration()).perSecond();
      if (!checkFirst) {
        check = checkLoop(c, options.load().unary().duration()).perSecond();
      }
      Progress.say(
          "P1 round %d/%d, %d in flight: NextId %,.0f/s, Check %,.0f/s",
          round, options.rounds().count(), c, nextId, check);
      System.out.println(
          ResultLine.format(
              "measure", "p1", "round", round, "concurrency", c, "nextId", nextId, "check", check));
    }
  }

  /** P2: IDs per second through NextIdBatch streams, one at a time, for each chunk size. */
  private void batches(int round) {
    for (int chunk : options.load().batch().chunks()) {
      long start = System.nanoTime();
      long until = start + options.load().batch().duration().toNanos();
      long ids = 0;
      do {
        ids += stream(chunk);
      } while (System.nanoTime() - until < 0);
      double idsPerSecond = ids * 1e9 / (System.nanoTime() - start);
      Progress.say(
          "P2 round %d/%d, chunk %,d: %,.0f IDs/s",
          round, options.rounds().count(), chunk, idsPerSecond);
      System.out.println(
          ResultLine.format(
              "measure", "p2", "round", round, "chunk", chunk, "idsPerSecond", idsPerSecond));
    }
  }

  /** P3: NextId latency of a tag whose every load is slow, small step against large. */
  private void latency(int round) throws InterruptedException {
    List<String> order =
        round % 2 == 1
            ? List.of(SMALL_STEP_TAG, LARGE_STEP_TAG, UNDELAYED_TAG)
            : List.of(UNDELAYED_TAG, LARGE_STEP_TAG, SMALL_STEP_TAG);
    for (String tag : order) {
      ClosedLoop.Result r =
          unaryLoop(
              tag.equals(UNDELAYED_TAG) ? undelayed : delayed,
              tag,
              options.load().latency().concurrency(),
              options.load().latency().duration());
      Progress.say(
          "P3 round %d/%d, %s: p50 %,.0f µs, p99 %,.0f µs, p99.9 %,.0f µs (%,.0f calls/s)",
          round,
          options.rounds().count(),
          tag,
          r.micros(50),
          r.micros(99),
          r.micros(99.9),
          r.perSecond());
      System.out.println(
          ResultLine.format(
              "measure",
              "p3",
              "round",
              round,
              "tag",
              tag,
              "p50",
              r.micros(50),
              "p99",
              r.micros(99),
              "p999",
              r.micros(99.9),
              "calls",
              r.calls(),
              "qps",
              r.perSecond()));
    }
  }

  private ClosedLoop.Result unaryLoop(
      ManagedChannel channel, String tag, int inFlight, Duration duration)
      throws InterruptedException {
    LeafServiceGrpc.LeafServiceStub stub = LeafServiceGrpc.newStub(channel);
    NextIdRequest request = NextIdRequest.newBuilder().setBizTag(tag).build();
    return ClosedLoop.<NextIdResponse>run(
        observer -> stub.nextId(request, observer), inFlight, duration);
  }

  private ClosedLoop.Result checkLoop(int inFlight, Duration duration) throws InterruptedException {
    HealthGrpc.HealthStub stub = HealthGrpc.newStub(plain);
    return ClosedLoop.<HealthCheckResponse>run(
        observer -> stub.check(CHECK, observer), inFlight, duration);
  }

  /** One NextIdBatch call read to its end; returns the number of IDs received. */
  private long stream(int chunk) {
    LeafServiceGrpc.LeafServiceBlockingStub stub =
        LeafServiceGrpc.newBlockingStub(plain).withDeadlineAfter(60, TimeUnit.SECONDS);
    Iterator<IdBatch> batches =
        stub.nextIdBatch(
            NextIdBatchRequest.newBuilder()
                .setBizTag(BATCH_TAG)
                .setCount(options.load().batch().count())
                .setChunkSize(chunk)
                .build());
    long received = 0;
    while (batches.hasNext()) {
      received += batches.next().getIdsCount();
    }
    if (received != options.load().batch().count()) {
      throw new IllegalStateException(
          "NextIdBatch ended after " + received + " of " + options.load().batch().count() + " IDs");
    }
    return received;
  }
}
