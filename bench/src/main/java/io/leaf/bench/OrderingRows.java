package io.leaf.bench;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.StatusRuntimeException;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.Ordering;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * O1–O3: what a STRICT tag costs its calls at the owner and through another server, and how long it
 * stops when its owner is killed -9.
 *
 * <p>O1 is NextId on a strict tag at its owner against a PER_SERVER tag on the same server, O2 the
 * strict tag through a server that forwards to the owner against at the owner, both by h2load at 8
 * and 64 calls in flight in rotating slices; O3 the gap after the owner is killed -9 until the
 * other server issues, with server processes on a shared database.
 */
final class OrderingRows {

  static final String STRICT_TAG = "bench.strict";
  static final String PLAIN_TAG = "bench.plain";

  /** Short, so that acquiring a tag and O3's failover take seconds; O3 reports it. */
  static final Duration TTL = Duration.ofSeconds(2);

  private static final List<Integer> IN_FLIGHT = List.of(8, 64);
  private static final int SLICES = 4;

  private final BenchOptions options;
  private final ResultsTable table;

  OrderingRows(BenchOptions options, ResultsTable table) {
    this.options = options;
    this.table = table;
  }

  void run(Path dir) throws Exception {
    Optional<H2Load> h2load = H2Load.find();
    if (h2load.isEmpty()) {
      table.add("O1, O2 strict NextId", "needs h2load (nghttp2-client)", "not run", "");
    } else {
      throughputRows(dir, h2load.get());
    }
    failoverRow(dir);
  }

  /** O1 and O2 on two servers in this JVM sharing one H2 file. */
  private void throughputRows(Path dir, H2Load h2load) throws Exception {
    String url = "jdbc:h2:file:" + dir.resolve("ordering") + ";MODE=MySQL";
    String ttl = TTL.toSeconds() + "s";
    try (BenchServer owner =
            BenchServer.start(
                url,
                "sa",
                "",
                Duration.ZERO,
                options.load().latency().largeStep(),
                "--tag-lease-ttl",
                ttl);
        BenchServer other =
            BenchServer.start(
                url,
                "sa",
                "",
                Duration.ZERO,
                options.load().latency().largeStep(),
                "--tag-lease-ttl",
                ttl)) {
      ManagedChannel toOwner = channel(owner.port());
      try {
        LeafServiceGrpc.LeafServiceBlockingStub stub = LeafServiceGrpc.newBlockingStub(toOwner);
        owner.ensureTag(PLAIN_TAG, options.load().latency().largeStep());
        stub.withDeadlineAfter(60, TimeUnit.SECONDS)
            .createTag(
                CreateTagRequest.newBuilder()
                    .setBizTag(STRICT_TAG)
                    .setStep(options.load().latency().largeStep())
                    .setOrdering(Ordering.STRICT)
                    .build());
        // The first call makes the server it reaches the owner (after waiting out a TTL).
        firstId(stub, Duration.ofSeconds(60));
        byte[] strict = NextIdRequest.newBuilder().setBizTag(STRICT_TAG).build().toByteArray();
        byte[] plain = NextIdRequest.newBuilder().setBizTag(PLAIN_TAG).build().toByteArray();
        for (int inFlight : IN_FLIGHT) {
          h2load.run(owner.port(), NEXT_ID, strict, options.rounds().warmup(), 1, inFlight);
          h2load.run(other.port(), NEXT_ID, strict, options.rounds().warmup(), 1, inFlight);
          h2load.run(owner.port(), NEXT_ID, plain, options.rounds().warmup(), 1, inFlight);
          List<Double> atOwner = new ArrayList<>();
          List<Double> perServer = new ArrayList<>();
          List<Double> forwarded = new ArrayList<>();
          List<Double> o1 = new ArrayList<>();
          List<Double> o2 = new ArrayList<>();
          for (int round = 0; round < options.rounds().count(); round++) {
            Progress.say("strict NextId, %d in flight, round %d", inFlight, round + 1);
            Duration slice = options.load().unary().duration().dividedBy(SLICES);
            double s = 0;
            double p = 0;
            double f = 0;
            for (int i = 0; i < SLICES; i++) {
              // Rotating order: a change in the machine's load hits all three alike.
              for (int k = 0; k < 3; k++) {
                switch ((i + round + k) % 3) {
                  case 0 -> s += rate(h2load, owner.port(), stub, STRICT_TAG, slice, inFlight);
                  case 1 -> p += rate(h2load, owner.port(), stub, PLAIN_TAG, slice, inFlight);
                  default -> f += rate(h2load, other.port(), stub, STRICT_TAG, slice, inFlight);
                }
              }
            }
            atOwner.add(s / SLICES);
            perServer.add(p / SLICES);
            forwarded.add(f / SLICES);
            o1.add(s / p);
            o2.add(f / s);
          }
          table.add(
              "O1 strict NextId at the owner ÷ PER_SERVER NextId, " + inFlight + " in flight",
              "h2load, one connection, one server in this JVM on an H2 file ("
                  + h2load.describe()
                  + ")",
              String.format(
                  Locale.ROOT,
                  "%,.0f calls/s strict, %,.0f calls/s PER_SERVER",
                  Stats.median(atOwner),
                  Stats.median(perServer)),
              String.format(Locale.ROOT, "%.2f (goal ≥ 0.8)", Stats.median(o1)));
          table.add(
              "O2 strict NextId through a non-owner ÷ at the owner, " + inFlight + " in flight",
              "h2load to a second server on the same H2 file, which forwards one hop",
              String.format(
                  Locale.ROOT, "%,.0f calls/s through the other server", Stats.median(forwarded)),
              String.format(Locale.ROOT, "%.2f (goal ≥ 0.45)", Stats.median(o2)));
        }
      } finally {
        toOwner.shutdownNow();
      }
    }
  }

  private static final String NEXT_ID = "leaf.v1.LeafService/NextId";

  /**
   * Calls/s of one h2load run of NextId on {@code tag} through {@code port}. h2load counts a gRPC
   * failure (HTTP 200, a status in the trailers) as a success, so the run counts only when the
   * tag's IDs, read at the owner ({@code owner}) before and after, advanced by at least the calls
   * h2load counted: a failed call consumes no ID.
   */
  private static double rate(
      H2Load h2load,
      int port,
      LeafServiceGrpc.LeafServiceBlockingStub owner,
      String tag,
      Duration d,
      int inFlight)
      throws Exception {
    byte[] body = NextIdRequest.newBuilder().setBizTag(tag).build().toByteArray();
    long before = idOf(owner, tag);
    H2Load.Run run = h2load.run(port, NEXT_ID, body, d, 1, inFlight);
    long advanced = idOf(owner, tag) - before - 1;
    if (run.failed() > 0 || advanced < run.succeeded()) {
      throw new IllegalStateException(
          String.format(
              Locale.ROOT,
              "NextId on %s through port %d: h2load counted %,d calls (%,d failed) but the IDs"
                  + " advanced by %,d: calls failed",
              tag,
              port,
              run.succeeded(),
              run.failed(),
              advanced));
    }
    return run.requestsPerSecond();
  }

  private static long idOf(LeafServiceGrpc.LeafServiceBlockingStub stub, String tag) {
    return stub.withDeadlineAfter(10, TimeUnit.SECONDS)
        .nextId(NextIdRequest.newBuilder().setBizTag(tag).build())
        .getId();
  }

  /** O3: two server processes on a shared H2 file; the owner killed -9, the other timed. */
  private void failoverRow(Path dir) throws Exception {
    List<Double> gaps = new ArrayList<>();
    int rounds = Math.max(3, options.rounds().count());
    for (int round = 0; round < rounds; round++) {
      Progress.say("strict tag: owner killed -9, round %d", round + 1);
      String url =
          "jdbc:h2:file:" + dir.resolve("failover" + round) + ";MODE=MySQL;AUTO_SERVER=TRUE";
      try (ServerChild first = ServerChild.start(url, TTL);
          ServerChild second = ServerChild.start(url, TTL)) {
        LeafServiceGrpc.LeafServiceBlockingStub a = first.stub();
        a.withDeadlineAfter(60, TimeUnit.SECONDS)
            .createTag(
                CreateTagRequest.newBuilder()
                    .setBizTag(STRICT_TAG)
                    .setStep(1000)
                    .setOrdering(Ordering.STRICT)
                    .build());
        // The owner is the second process: the first hosts the H2 file (AUTO_SERVER), and a
        // killed host would add the file's lock take-over to what is measured.
        LeafServiceGrpc.LeafServiceBlockingStub b = second.stub();
        firstId(b, Duration.ofSeconds(60));
        String ownerName =
            b.getTag(GetTagRequest.newBuilder().setBizTag(STRICT_TAG).build()).getOwner();
        if (!ownerName.endsWith(":" + second.port)) {
          throw new IllegalStateException("the second server is not the owner: " + ownerName);
        }
        second.kill();
        long killed = System.nanoTime();
        firstId(a, Duration.ofSeconds(60));
        gaps.add((System.nanoTime() - killed) / 1e9);
      }
    }
    double gap = Stats.median(gaps);
    table.add(
        "O3 owner killed -9 → first ID from the next owner",
        "two server processes on a shared H2 file (AUTO_SERVER; the owner is the one not"
            + " hosting it), --tag-lease-ttl "
            + TTL.toSeconds()
            + "s, NextId retried on the other server with 1 s deadlines ("
            + rounds
            + " rounds)",
        String.format(Locale.ROOT, "%.1f s (%.1f × the TTL)", gap, gap / TTL.toSeconds()),
        String.format(
            Locale.ROOT, "%.1f s against the goal TTL + 2 s = %d s", gap, TTL.toSeconds() + 2));
  }

  /** Calls NextId on the strict tag until one succeeds. */
  private static void firstId(LeafServiceGrpc.LeafServiceBlockingStub stub, Duration within) {
    firstId(stub, STRICT_TAG, within);
  }

  /** Calls NextId on {@code tag} until one succeeds (its first owner waits out a lease). */
  static void firstId(LeafServiceGrpc.LeafServiceBlockingStub stub, String tag, Duration within) {
    long until = System.nanoTime() + within.toNanos();
    StatusRuntimeException last = null;
    while (System.nanoTime() - until < 0) {
      try {
        stub.withDeadlineAfter(1, TimeUnit.SECONDS)
            .nextId(NextIdRequest.newBuilder().setBizTag(tag).build());
        return;
      } catch (StatusRuntimeException e) {
        last = e;
        pause();
      }
    }
    throw new IllegalStateException("no ID of " + tag + " within " + within, last);
  }

  /** A client's back-off between retries: 10 ms. */
  private static void pause() {
    try {
      Thread.sleep(10);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  static ManagedChannel channel(int port) {
    return ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
  }
}
