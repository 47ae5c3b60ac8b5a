package io.leaf.bench;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import io.leaf.v1.IdBatch;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.NextIdResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The overload measurements that need the server alone in its JVM ({@link IsolatedServer}): the
 * server's threads while thousands of calls wait on a stalled database, and another client's NextId
 * latency while hundreds of NextIdBatch streams are never read, at a small heap.
 */
final class ServerStress {

  private static final int CHANNELS = 8;
  private static final int STREAM_COUNT = 10_000_000;
  private static final int STREAM_CHUNK = 100_000;
  private static final String SMALL_HEAP = "-Xmx256m";

  private final IsolatedServers servers;
  private final BenchOptions options;
  private final ResultsTable table;

  ServerStress(IsolatedServers servers, ResultsTable table) {
    this.servers = servers;
    this.options = servers.options;
    this.table = table;
  }

  void run() throws Exception {
    stalledRow();
    unreadStreamsRow();
  }

  /** Thousands of NextId calls on a tag whose first load never returns: threads and memory. */
  private void stalledRow() throws Exception {
    int calls = options.quick() ? 400 : 4_000;
    try (IsolatedServer server = servers.start(List.of(), List.of("--max-wait", "60s"))) {
      int port = server.port();
      long idleThreads = server.threads();
      List<ManagedChannel> channels = channels(port);
      AtomicInteger answered = new AtomicInteger();
      try {
        NextIdRequest request =
            NextIdRequest.newBuilder().setBizTag(IsolatedServers.STALLED_TAG).build();
        for (int i = 0; i < calls; i++) {
          LeafServiceGrpc.newStub(channels.get(i % CHANNELS))
              .withDeadlineAfter(60, TimeUnit.SECONDS)
              .nextId(request, new Counting<>(answered));
        }
        long maxThreads = 0;
        long maxRss = 0;
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        while (System.nanoTime() < until) {
          maxThreads = Math.max(maxThreads, server.threads());
          maxRss = Math.max(maxRss, server.rssKib());
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
        int pending = calls - answered.get();
        Progress.say(
            "stalled database, %,d NextId calls: %,d still waiting, server threads %,d"
                + " (idle %,d), RSS %,d MiB",
            calls, pending, maxThreads, idleThreads, maxRss / 1024);
        table.add(
            "Server threads with " + fmt(calls) + " NextId calls waiting on a stalled database",
            fmt(calls)
                + " async NextId calls over "
                + CHANNELS
                + " channels on a tag whose first"
                + " segment load never returns (--max-wait 60s); "
                + servers.build
                + " alone in a JVM"
                + " (default flags); most threads and RSS in the 3 s after sending, from /proc",
            String.format(
                Locale.ROOT,
                "%,d threads (%,d before the calls), RSS %,d MiB; %,d calls" + " still waiting",
                maxThreads,
                idleThreads,
                maxRss / 1024,
                pending),
            "goal ≤ 300 threads");
      } finally {
        close(channels);
      }
    }
  }

  /**
   * Shuts the channels down and waits for them, so that the server is not killed under a channel
   * still holding received data (Netty would report the buffers it then drops as leaks).
   */
  private static void close(List<ManagedChannel> channels) throws InterruptedException {
    for (ManagedChannel c : channels) {
      c.shutdownNow();
    }
    for (ManagedChannel c : channels) {
      c.awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  /**
   * Hundreds of 10M-ID streams nobody reads, at a small heap: another client's NextId latency while
   * the server fills the readers' flow-control windows, and again once they are full (the streams
   * take no more IDs), when what is left is the bound: one chunk at most per stream.
   */
  private void unreadStreamsRow() throws Exception {
    int streams = options.quick() ? 80 : 800;
    try (IsolatedServer server =
        servers.start(
            List.of(SMALL_HEAP), List.of("--max-batch", Integer.toString(STREAM_COUNT)))) {
      int port = server.port();
      List<ManagedChannel> channels = channels(port);
      // Another client: its own connection and event loop, so that receiving the streams' data in
      // this JVM does not delay its answers here.
      NioEventLoopGroup secondLoop = new NioEventLoopGroup(1);
      ManagedChannel second =
          NettyChannelBuilder.forAddress("127.0.0.1", port)
              .usePlaintext()
              .eventLoopGroup(secondLoop)
              .channelType(NioSocketChannel.class)
              .directExecutor()
              .build();
      Map<Status.Code, AtomicInteger> ends = new ConcurrentHashMap<>();
      try {
        LeafServiceGrpc.LeafServiceBlockingStub probe =
            LeafServiceGrpc.newBlockingStub(second).withDeadlineAfter(30, TimeUnit.SECONDS);
        NextIdRequest streamTag = NextIdRequest.newBuilder().setBizTag(IsolatedServers.TAG).build();
        NextIdRequest nextId =
            NextIdRequest.newBuilder().setBizTag(IsolatedServers.OTHER_TAG).build();
        // The tag's first load and the connection are not what this row measures.
        probe.nextId(nextId);
        NextIdBatchRequest request =
            NextIdBatchRequest.newBuilder()
                .setBizTag(IsolatedServers.TAG)
                .setCount(STREAM_COUNT)
                .setChunkSize(STREAM_CHUNK)
                .build();
        for (int i = 0; i < streams; i++) {
          LeafServiceGrpc.newStub(channels.get(i % CHANNELS))
              .nextIdBatch(request, new Unread(ends));
        }
        LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(2));
        String filling = latency(second, nextId);
        // Full windows: the streams stop taking IDs (at most 60 s).
        long fillStart = System.nanoTime();
        long before = idOf(second, streamTag);
        long consumed = Long.MAX_VALUE;
        while (before > 0
            && consumed > STREAM_CHUNK
            && System.nanoTime() - fillStart < TimeUnit.SECONDS.toNanos(60)) {
          LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
          long now = idOf(second, streamTag);
          consumed = now - before - 1;
          before = now;
        }
        long filledAfter = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - fillStart) + 2;
        String full = latency(second, nextId);
        String outcome =
            (server.sawOutOfMemory() ? "OutOfMemoryError" : "no OutOfMemoryError")
                + (server.alive() ? "" : ", server died");
        Progress.say(
            "%,d unread streams: while filling %s; windows full after about %d s: %s;"
                + " %s; stream ends %s; server RSS %,d MiB",
            streams, filling, filledAfter, full, outcome, ends, server.rssKib() / 1024);
        table.add(
            "Second client's NextId while " + fmt(streams) + " NextIdBatch streams are unread",
            fmt(streams)
                + " NextIdBatch calls (count "
                + fmt(STREAM_COUNT)
                + ", chunk_size "
                + fmt(STREAM_CHUNK)
                + ") over "
                + CHANNELS
                + " channels whose readers never read"
                + " (grpc-java's default windows); another client (own connection and event loop)"
                + " calls NextId of another tag, "
                + options.load().latency().concurrency()
                + " in flight"
                + " (closed loop, 5 s deadline), for "
                + ms(options.load().latency().duration())
                + " from 2 s"
                + " after opening and again once the streams take no more IDs; "
                + servers.build
                + " alone in a JVM with "
                + SMALL_HEAP,
            "while the windows fill: "
                + filling
                + "; once full (after about "
                + filledAfter
                + " s): "
                + full
                + "; "
                + outcome
                + "; streams refused or ended: "
                + ends,
            "goal p99 < 100 ms, no OOM");
      } finally {
        second.shutdownNow();
        second.awaitTermination(5, TimeUnit.SECONDS);
        secondLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        close(channels);
      }
    }
  }

  /** One ID, or -1 when the server does not answer within 10 s. */
  private static long idOf(ManagedChannel channel, NextIdRequest request) {
    try {
      return LeafServiceGrpc.newBlockingStub(channel)
          .withDeadlineAfter(10, TimeUnit.SECONDS)
          .nextId(request)
          .getId();
    } catch (StatusRuntimeException e) {
      return -1;
    }
  }

  private String latency(ManagedChannel channel, NextIdRequest nextId) throws InterruptedException {
    LeafServiceGrpc.LeafServiceStub stub = LeafServiceGrpc.newStub(channel);
    try {
      ClosedLoop.Result r =
          ClosedLoop.<NextIdResponse>run(
              o -> stub.withDeadlineAfter(5, TimeUnit.SECONDS).nextId(nextId, o),
              options.load().latency().concurrency(),
              options.load().latency().duration());
      return String.format(
          Locale.ROOT,
          "NextId p50 %,.1f ms, p99 %,.1f ms (%,.0f calls/s)",
          r.micros(50) / 1000,
          r.micros(99) / 1000,
          r.perSecond());
    } catch (IllegalStateException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      return "NextId failed: " + Status.fromThrowable(cause).getCode();
    }
  }

  private static List<ManagedChannel> channels(int port) {
    List<ManagedChannel> out = new ArrayList<>();
    for (int i = 0; i < CHANNELS; i++) {
      out.add(IsolatedServers.channel(port));
    }
    return out;
  }

  private static String fmt(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  private static String ms(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }

  /** Counts the calls that ended, however they ended. */
  private record Counting<T>(AtomicInteger ended) implements StreamObserver<T> {
    @Override
    public void onNext(T value) {}

    @Override
    public void onError(Throwable t) {
      ended.incrementAndGet();
    }

    @Override
    public void onCompleted() {
      ended.incrementAndGet();
    }
  }

  /**
   * A NextIdBatch reader that never asks for a message; records how its stream ended, if it did.
   */
  private record Unread(Map<Status.Code, AtomicInteger> ends)
      implements ClientResponseObserver<NextIdBatchRequest, IdBatch> {
    @Override
    public void beforeStart(ClientCallStreamObserver<NextIdBatchRequest> call) {
      call.disableAutoRequestWithInitial(0);
    }

    @Override
    public void onNext(IdBatch batch) {}

    @Override
    public void onError(Throwable t) {
      ends.computeIfAbsent(Status.fromThrowable(t).getCode(), c -> new AtomicInteger())
          .incrementAndGet();
    }

    @Override
    public void onCompleted() {
      ends.computeIfAbsent(Status.Code.OK, c -> new AtomicInteger()).incrementAndGet();
    }
  }
}
