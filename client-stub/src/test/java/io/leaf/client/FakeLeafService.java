package io.leaf.client;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.IdBatch;
import io.leaf.v1.IdRange;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.NextIdResponse;
import io.leaf.v1.NextSequenceRequest;
import io.leaf.v1.ReserveIdsRequest;
import io.leaf.v1.ReservedIds;
import io.leaf.v1.Sequence;
import io.leaf.v1.Tag;
import io.leaf.v1.UpdateStepRequest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An in-process LeafService handing out 1, 2, 3, … that records every NextIdBatch and ReserveIds
 * count and can be told to block, fail, or fail a number of times; close() stops it.
 */
final class FakeLeafService extends LeafServiceGrpc.LeafServiceImplBase implements AutoCloseable {

  private final AtomicLong nextId = new AtomicLong(1);
  private final List<Integer> batchCounts = Collections.synchronizedList(new ArrayList<>());
  private final BlockingQueue<Integer> batchRequests = new LinkedBlockingQueue<>();
  private final AtomicReference<CountDownLatch> gate = new AtomicReference<>();
  private final AtomicReference<Status> failure = new AtomicReference<>();
  private final AtomicInteger failuresLeft = new AtomicInteger();
  private final AtomicInteger calls = new AtomicInteger();
  private volatile int shortBy;
  private volatile boolean split;
  private final List<Integer> reserveCounts = Collections.synchronizedList(new ArrayList<>());
  private final BlockingQueue<Integer> reserveRequests = new LinkedBlockingQueue<>();
  private final String name = InProcessServerBuilder.generateName();
  private final Server server;

  FakeLeafService() throws Exception {
    this(1);
  }

  /** A service handing out {@code firstId}, {@code firstId + 1}, … (one region's share, say). */
  FakeLeafService(long firstId) throws Exception {
    this(firstId, null);
  }

  /**
   * As {@link #FakeLeafService(long)}, naming {@code owner} in every answer's leaf-owner header.
   */
  FakeLeafService(long firstId, String owner) throws Exception {
    nextId.set(firstId);
    server =
        InProcessServerBuilder.forName(name)
            .addService(
                owner == null
                    ? bindService()
                    : io.grpc.ServerInterceptors.intercept(
                        this,
                        new io.grpc.ServerInterceptor() {
                          @Override
                          public <Q, R> io.grpc.ServerCall.Listener<Q> interceptCall(
                              io.grpc.ServerCall<Q, R> call,
                              io.grpc.Metadata headers,
                              io.grpc.ServerCallHandler<Q, R> next) {
                            return next.startCall(
                                new io.grpc.ForwardingServerCall.SimpleForwardingServerCall<>(
                                    call) {
                                  @Override
                                  public void sendHeaders(io.grpc.Metadata h) {
                                    h.put(OwnerRoutes.OWNER, owner);
                                    super.sendHeaders(h);
                                  }
                                },
                                headers);
                          }
                        }))
            .build()
            .start();
  }

  /** The in-process name channels reach this service by. */
  String name() {
    return name;
  }

  InProcessChannelBuilder channelBuilder() {
    return InProcessChannelBuilder.forName(name);
  }

  ManagedChannel channel() {
    return channelBuilder().build();
  }

  /** Calls block until {@link #release()}. */
  void block() {
    gate.set(new CountDownLatch(1));
  }

  void release() {
    CountDownLatch g = gate.getAndSet(null);
    if (g != null) {
      g.countDown();
    }
  }

  /** Every call fails with {@code status} until {@link #heal()}. */
  void fail(Status status) {
    failure.set(status);
    failuresLeft.set(Integer.MAX_VALUE);
  }

  /** The next {@code times} calls fail with {@code status}. */
  void failTimes(Status status, int times) {
    failure.set(status);
    failuresLeft.set(times);
  }

  void heal() {
    failure.set(null);
  }

  /** NextIdBatch streams this many IDs fewer than asked for. */
  void streamShortBy(int n) {
    shortBy = n;
  }

  /** ReserveIds answers with 3 ranges, 5 unused IDs between them (counts of 3 and more). */
  void splitRanges() {
    split = true;
  }

  List<Integer> reserveCounts() {
    synchronized (reserveCounts) {
      return List.copyOf(reserveCounts);
    }
  }

  /** Waits for the next ReserveIds request and returns its count, or null after 10 s. */
  Integer awaitReserveRequest() throws InterruptedException {
    return reserveRequests.poll(10, TimeUnit.SECONDS);
  }

  /** Every RPC received, failed ones included. */
  int calls() {
    return calls.get();
  }

  List<Integer> batchCounts() {
    synchronized (batchCounts) {
      return List.copyOf(batchCounts);
    }
  }

  /** Waits for the next NextIdBatch request and returns its count, or null after 10 s. */
  Integer awaitBatchRequest() throws InterruptedException {
    return batchRequests.poll(10, TimeUnit.SECONDS);
  }

  /** Blocks if told to, then returns the failure to answer with, or null. */
  private Status enter() {
    calls.incrementAndGet();
    CountDownLatch g = gate.get();
    if (g != null) {
      try {
        g.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    Status f = failure.get();
    if (f != null && failuresLeft.getAndDecrement() > 0) {
      return f;
    }
    return null;
  }

  @Override
  public void nextId(NextIdRequest req, StreamObserver<NextIdResponse> out) {
    Status f = enter();
    if (f != null) {
      out.onError(f.asRuntimeException());
      return;
    }
    out.onNext(NextIdResponse.newBuilder().setId(nextId.getAndIncrement()).build());
    out.onCompleted();
  }

  /** Answers the next ID as the key's next value: one counter for IDs and sequences alike. */
  @Override
  public void nextSequence(NextSequenceRequest req, StreamObserver<Sequence> out) {
    Status f = enter();
    if (f != null) {
      out.onError(f.asRuntimeException());
      return;
    }
    out.onNext(Sequence.newBuilder().setValue(nextId.getAndIncrement()).build());
    out.onCompleted();
  }

  @Override
  public void createTag(CreateTagRequest req, StreamObserver<Tag> out) {
    answer(out, Tag.newBuilder().setBizTag(req.getBizTag()).setStep(req.getStep()).build());
  }

  @Override
  public void updateStep(UpdateStepRequest req, StreamObserver<Tag> out) {
    answer(out, Tag.newBuilder().setBizTag(req.getBizTag()).setStep(req.getStep()).build());
  }

  private <T> void answer(StreamObserver<T> out, T value) {
    Status f = enter();
    if (f != null) {
      out.onError(f.asRuntimeException());
      return;
    }
    out.onNext(value);
    out.onCompleted();
  }

  @Override
  public void nextIdBatch(NextIdBatchRequest req, StreamObserver<IdBatch> out) {
    batchCounts.add(req.getCount());
    batchRequests.add(req.getCount());
    Status f = enter();
    if (f != null) {
      out.onError(f.asRuntimeException());
      return;
    }
    int count = req.getCount() - shortBy;
    long first = nextId.getAndAdd(count);
    IdBatch.Builder chunk = IdBatch.newBuilder();
    for (int i = 0; i < count; i++) {
      chunk.addIds(first + i);
      if (chunk.getIdsCount() == 1_000) {
        out.onNext(chunk.build());
        chunk = IdBatch.newBuilder();
      }
    }
    if (chunk.getIdsCount() > 0) {
      out.onNext(chunk.build());
    }
    out.onCompleted();
  }

  @Override
  public void reserveIds(ReserveIdsRequest req, StreamObserver<ReservedIds> out) {
    reserveCounts.add(req.getCount());
    reserveRequests.add(req.getCount());
    Status f = enter();
    if (f != null) {
      out.onError(f.asRuntimeException());
      return;
    }
    int count = req.getCount();
    ReservedIds.Builder reply = ReservedIds.newBuilder();
    if (split && count >= 3) {
      long s = nextId.getAndAdd(count + 10);
      int a = count / 3;
      reply
          .addRanges(range(s, s + a))
          .addRanges(range(s + a + 5, s + 2 * a + 5))
          .addRanges(range(s + 2 * a + 10, s + count + 10));
    } else {
      long s = nextId.getAndAdd(count);
      reply.addRanges(range(s, s + count));
    }
    out.onNext(reply.build());
    out.onCompleted();
  }

  private static IdRange range(long start, long end) {
    return IdRange.newBuilder().setStart(start).setEnd(end).build();
  }

  @Override
  public void close() throws Exception {
    release();
    server.shutdownNow();
    server.awaitTermination(5, TimeUnit.SECONDS);
  }
}
