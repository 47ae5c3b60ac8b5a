package io.leaf.bench;

import io.grpc.ManagedChannel;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.NextIdResponse;
import io.leaf.v1.NextSequenceRequest;
import io.leaf.v1.Ordering;
import io.leaf.v1.Sequence;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * O4: NextSequence on keys spread over 1,000,000 against NextId on the same STRICT tag at its
 * owner, and the heap one active key costs.
 *
 * <p>Both calls go through one closed loop of asynchronous calls (grpc-java, one connection), in
 * rotating slices; h2load cannot vary the key per call. The heap is measured in a JVM of its own
 * ({@link HeapPerKey}).
 */
final class SequenceRows {

  static final int KEYS = 1_000_000;
  private static final String TAG = "bench.sequences";
  private static final int IN_FLIGHT = 64;
  private static final int SLICES = 4;

  private final BenchOptions options;
  private final ResultsTable table;

  SequenceRows(BenchOptions options, ResultsTable table) {
    this.options = options;
    this.table = table;
  }

  void run(Path dir) throws Exception {
    throughputRow(dir);
    heapRow();
  }

  private void throughputRow(Path dir) throws Exception {
    String url = "jdbc:h2:file:" + dir.resolve("sequences") + ";MODE=MySQL";
    try (BenchServer server =
        BenchServer.start(
            url,
            "sa",
            "",
            Duration.ZERO,
            options.load().latency().largeStep(),
            "--tag-lease-ttl",
            OrderingRows.TTL.toSeconds() + "s")) {
      ManagedChannel channel = OrderingRows.channel(server.port());
      try {
        LeafServiceGrpc.newBlockingStub(channel)
            .withDeadlineAfter(60, TimeUnit.SECONDS)
            .createTag(
                CreateTagRequest.newBuilder()
                    .setBizTag(TAG)
                    .setStep(options.load().latency().largeStep())
                    .setOrdering(Ordering.STRICT)
                    .build());
        OrderingRows.firstId(LeafServiceGrpc.newBlockingStub(channel), TAG, Duration.ofSeconds(60));
        LeafServiceGrpc.LeafServiceStub stub = LeafServiceGrpc.newStub(channel);
        sequences(stub, options.rounds().warmup());
        ids(stub, options.rounds().warmup());
        List<Double> perKey = new ArrayList<>();
        List<Double> nextId = new ArrayList<>();
        List<Double> ratios = new ArrayList<>();
        for (int round = 0; round < options.rounds().count(); round++) {
          Progress.say("NextSequence over %,d keys, round %d", KEYS, round + 1);
          Duration slice = options.load().unary().duration().dividedBy(SLICES);
          double s = 0;
          double n = 0;
          for (int i = 0; i < SLICES; i++) {
            // Rotating order: a change in the machine's load hits both alike.
            if ((i + round) % 2 == 0) {
              s += sequences(stub, slice);
              n += ids(stub, slice);
            } else {
              n += ids(stub, slice);
              s += sequences(stub, slice);
            }
          }
          perKey.add(s / SLICES);
          nextId.add(n / SLICES);
          ratios.add(s / n);
        }
        table.add(
            "O4 NextSequence over " + String.format(Locale.ROOT, "%,d", KEYS) + " keys ÷ NextId",
            "a STRICT tag at its owner (one server in this JVM on an H2 file), each NextSequence"
                + " on a key drawn at random; grpc-java closed loop, "
                + IN_FLIGHT
                + " in flight, one connection, rotating slices",
            String.format(
                Locale.ROOT,
                "%,.0f calls/s NextSequence, %,.0f calls/s NextId",
                Stats.median(perKey),
                Stats.median(nextId)),
            String.format(Locale.ROOT, "%.2f (goal ≥ 0.7)", Stats.median(ratios)));
      } finally {
        channel.shutdownNow();
      }
    }
  }

  private static double sequences(LeafServiceGrpc.LeafServiceStub stub, Duration d)
      throws InterruptedException {
    return ClosedLoop.<Sequence>run(
            observer ->
                stub.nextSequence(
                    NextSequenceRequest.newBuilder()
                        .setBizTag(TAG)
                        .setKey("user-" + ThreadLocalRandom.current().nextInt(KEYS))
                        .build(),
                    observer),
            IN_FLIGHT,
            d)
        .perSecond();
  }

  private static double ids(LeafServiceGrpc.LeafServiceStub stub, Duration d)
      throws InterruptedException {
    NextIdRequest request = NextIdRequest.newBuilder().setBizTag(TAG).build();
    return ClosedLoop.<NextIdResponse>run(observer -> stub.nextId(request, observer), IN_FLIGHT, d)
        .perSecond();
  }

  private void heapRow() throws Exception {
    List<String> jvmArgs = List.of("-XX:+UseSerialGC", "-Xmx1g");
    Progress.say("sequence heap JVM: %,d keys × %d rounds", KEYS, options.rounds().count());
    List<Map<String, String>> heap =
        ChildJvm.run(
            jvmArgs,
            HeapPerKey.class,
            List.of(Integer.toString(KEYS), Integer.toString(options.rounds().count())),
            600);
    table.add(
        "O4 heap per active NextSequence key",
        String.format(Locale.ROOT, "%,d", KEYS)
            + " keys given one value each (Sequences on an in-memory section store, the"
            + " server's --sequence-max-keys default); used heap after 3× System.gc(), before and"
            + " after; separate JVM "
            + String.join(" ", jvmArgs),
        String.format(
            Locale.ROOT,
            "%,.0f bytes per key",
            Stats.median(
                LoadResults.values(LoadResults.select(heap, "keyHeap", r -> true), "bytesPerKey"))),
        "goal ≤ 128 B");
  }
}
