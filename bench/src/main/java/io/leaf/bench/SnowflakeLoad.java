package io.leaf.bench;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.leaf.v1.GetWorkerRequest;
import io.leaf.v1.IdBatch;
import io.leaf.v1.NextIdResponse;
import io.leaf.v1.NextSnowflakeIdBatchRequest;
import io.leaf.v1.NextSnowflakeIdRequest;
import io.leaf.v1.NextUuidRequest;
import io.leaf.v1.SnowflakeServiceGrpc;
import io.leaf.v1.Uuid;
import java.time.Duration;
import java.util.Arrays;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;

/**
 * The snowflake rows' client, run in a JVM of its own: per round, unary NextSnowflakeId against
 * Health/Check and NextUuid at the highest concurrency (order alternating), then IDs/s through
 * NextSnowflakeIdBatch streams read one after another. Prints one result line per measure.
 */
public final class SnowflakeLoad {

  private static final NextSnowflakeIdRequest NEXT = NextSnowflakeIdRequest.getDefaultInstance();
  private static final NextUuidRequest UUID = NextUuidRequest.getDefaultInstance();
  private static final HealthCheckRequest CHECK = HealthCheckRequest.getDefaultInstance();

  /** IDs per NextSnowflakeIdBatch call. */
  static final int BATCH_COUNT = 1_000_000;

  static final int CHUNK = 10_000;

  private SnowflakeLoad() {}

  /** {@code <port> <bench flags>...} */
  public static void main(String[] args) throws Exception {
    BenchOptions options = BenchOptions.parse(Arrays.copyOfRange(args, 1, args.length));
    ManagedChannel channel =
        Grpc.newChannelBuilderForAddress(
                "127.0.0.1", Integer.parseInt(args[0]), InsecureChannelCredentials.create())
            .directExecutor()
            .build();
    try {
      run(options, channel);
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static void run(BenchOptions options, ManagedChannel channel) throws Exception {
    awaitLease(channel);
    int inFlight =
        options
            .load()
            .unary()
            .concurrencies()
            .get(options.load().unary().concurrencies().size() - 1);
    WarmUp.untilSettled(
        options.quick(),
        "snowflake rows (" + options.rounds().warmup().toMillis() + " ms of each call type a run)",
        () ->
            new double[] {
              unary(channel, inFlight, options.rounds().warmup()),
                  check(channel, inFlight, options.rounds().warmup()),
              uuid(channel, inFlight, options.rounds().warmup()),
                  stream(channel, options.rounds().warmup())
            });
    for (int round = 1; round <= options.rounds().count(); round++) {
      double check = 0;
      double uuid = 0;
      if (round % 2 == 1) {
        check = check(channel, inFlight, options.load().unary().duration());
        uuid = uuid(channel, inFlight, options.load().unary().duration());
      }
      double next = unary(channel, inFlight, options.load().unary().duration());
      if (round % 2 == 0) {
        uuid = uuid(channel, inFlight, options.load().unary().duration());
        check = check(channel, inFlight, options.load().unary().duration());
      }
      double ids = stream(channel, options.load().batch().duration());
      Progress.say(
          "S round %d/%d: NextSnowflakeId %,.0f/s, NextUuid %,.0f/s, Check %,.0f/s,"
              + " batch %,.0f IDs/s",
          round, options.rounds().count(), next, uuid, check, ids);
      System.out.println(
          ResultLine.format(
              "measure",
              "sf",
              "round",
              round,
              "inFlight",
              inFlight,
              "next",
              next,
              "uuid",
              uuid,
              "check",
              check,
              "idsPerSecond",
              ids));
    }
  }

  /** Waits (at most 30 s) until the server on {@code channel} holds a worker lease. */
  static void awaitLease(ManagedChannel channel) throws InterruptedException {
    SnowflakeServiceGrpc.SnowflakeServiceBlockingStub blocking =
        SnowflakeServiceGrpc.newBlockingStub(channel);
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (blocking
            .withDeadlineAfter(10, TimeUnit.SECONDS)
            .getWorker(GetWorkerRequest.getDefaultInstance())
            .getWorkerId()
        < 0) {
      if (System.nanoTime() > end) {
        throw new IllegalStateException(
            "the server leased no worker ID in 60 s (a claim is held back for the lease TTL plus 1"
                + " s)");
      }
      Thread.sleep(20);
    }
  }

  private static double unary(ManagedChannel channel, int inFlight, Duration d)
      throws InterruptedException {
    SnowflakeServiceGrpc.SnowflakeServiceStub stub = SnowflakeServiceGrpc.newStub(channel);
    return ClosedLoop.<NextIdResponse>run(o -> stub.nextSnowflakeId(NEXT, o), inFlight, d)
        .perSecond();
  }

  private static double uuid(ManagedChannel channel, int inFlight, Duration d)
      throws InterruptedException {
    SnowflakeServiceGrpc.SnowflakeServiceStub stub = SnowflakeServiceGrpc.newStub(channel);
    return ClosedLoop.<Uuid>run(o -> stub.nextUuid(UUID, o), inFlight, d).perSecond();
  }

  private static double check(ManagedChannel channel, int inFlight, Duration d)
      throws InterruptedException {
    HealthGrpc.HealthStub stub = HealthGrpc.newStub(channel);
    return ClosedLoop.<HealthCheckResponse>run(o -> stub.check(CHECK, o), inFlight, d).perSecond();
  }

  /** Streams read one after another for {@code d}; IDs per second. */
  private static double stream(ManagedChannel channel, Duration d) {
    long start = System.nanoTime();
    long until = start + d.toNanos();
    long ids = 0;
    do {
      Iterator<IdBatch> batches =
          SnowflakeServiceGrpc.newBlockingStub(channel)
              .withDeadlineAfter(60, TimeUnit.SECONDS)
              .nextSnowflakeIdBatch(
                  NextSnowflakeIdBatchRequest.newBuilder()
                      .setCount(BATCH_COUNT)
                      .setChunkSize(CHUNK)
                      .build());
      long received = 0;
      while (batches.hasNext()) {
        received += batches.next().getIdsCount();
      }
      if (received != BATCH_COUNT) {
        throw new IllegalStateException("NextSnowflakeIdBatch ended after " + received);
      }
      ids += received;
    } while (System.nanoTime() - until < 0);
    return ids * 1e9 / (System.nanoTime() - start);
  }
}
