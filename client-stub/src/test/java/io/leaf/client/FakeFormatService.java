package io.leaf.client;

import io.grpc.Server;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.FormattedId;
import io.leaf.v1.FormattedIdBatch;
import io.leaf.v1.FormattedIdParts;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.ParseFormattedIdRequest;
import io.leaf.v1.SetFormatRequest;
import io.leaf.v1.Tag;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An in-process LeafService for the formatted-ID calls: it numbers ORD-0001, ORD-0002, … in chunks
 * of at most 1,000, answers ParseFormattedId with the parts it is given, records every request, and
 * can be told to fail a number of calls, to stream short or long, or to fail a stream after its
 * first chunk; close() stops it.
 */
final class FakeFormatService extends LeafServiceGrpc.LeafServiceImplBase implements AutoCloseable {

  private final AtomicInteger next = new AtomicInteger(1);
  private final AtomicInteger calls = new AtomicInteger();
  private final AtomicReference<Status> failure = new AtomicReference<>();
  private final AtomicInteger failuresLeft = new AtomicInteger();
  private final AtomicReference<Status> midStreamFailure = new AtomicReference<>();
  private final AtomicReference<FormattedIdParts> parts =
      new AtomicReference<>(FormattedIdParts.getDefaultInstance());
  private final List<Object> requests = new CopyOnWriteArrayList<>();
  private volatile int streamExtra;
  private final String name = InProcessServerBuilder.generateName();
  private final Server server;

  FakeFormatService() throws Exception {
    server = InProcessServerBuilder.forName(name).addService(this).build().start();
  }

  InProcessChannelBuilder channelBuilder() {
    return InProcessChannelBuilder.forName(name);
  }

  /** The next {@code times} calls fail with {@code status}. */
  void failTimes(Status status, int times) {
    failure.set(status);
    failuresLeft.set(times);
  }

  /** NextFormattedIdBatch streams this many values more (negative: fewer) than asked for. */
  void streamExtra(int n) {
    streamExtra = n;
  }

  /** NextFormattedIdBatch fails with {@code status} after its first chunk. */
  void failAfterFirstChunk(Status status) {
    midStreamFailure.set(status);
  }

  /** What ParseFormattedId answers. */
  void parseAnswer(FormattedIdParts answer) {
    parts.set(answer);
  }

  /** Every RPC received, failed ones included. */
  int calls() {
    return calls.get();
  }

  /** Every request received, in order. */
  List<Object> requests() {
    return List.copyOf(requests);
  }

  /** The failure to answer with, or null. */
  private Status enter(Object request) {
    calls.incrementAndGet();
    requests.add(request);
    Status f = failure.get();
    return f != null && failuresLeft.getAndDecrement() > 0 ? f : null;
  }

  private <T> void answer(Object request, StreamObserver<T> out, T value) {
    Status f = enter(request);
    if (f != null) {
      out.onError(f.asRuntimeException());
      return;
    }
    out.onNext(value);
    out.onCompleted();
  }

  private String nextValue() {
    return String.format("ORD-%04d", next.getAndIncrement());
  }

  @Override
  public void createTag(CreateTagRequest req, StreamObserver<Tag> out) {
    Tag.Builder tag = Tag.newBuilder().setBizTag(req.getBizTag()).setStep(req.getStep());
    if (req.hasFormat()) {
      tag.setFormat(req.getFormat());
    }
    answer(req, out, tag.build());
  }

  @Override
  public void setFormat(SetFormatRequest req, StreamObserver<Tag> out) {
    answer(
        req, out, Tag.newBuilder().setBizTag(req.getBizTag()).setFormat(req.getFormat()).build());
  }

  @Override
  public void nextFormattedId(NextIdRequest req, StreamObserver<FormattedId> out) {
    Status f = enter(req);
    if (f != null) {
      out.onError(f.asRuntimeException());
      return;
    }
    out.onNext(FormattedId.newBuilder().setValue(nextValue()).build());
    out.onCompleted();
  }

  @Override
  public void nextFormattedIdBatch(NextIdBatchRequest req, StreamObserver<FormattedIdBatch> out) {
    Status f = enter(req);
    if (f != null) {
      out.onError(f.asRuntimeException());
      return;
    }
    int count = req.getCount() + streamExtra;
    FormattedIdBatch.Builder chunk = FormattedIdBatch.newBuilder();
    for (int i = 0; i < count; i++) {
      chunk.addValues(nextValue());
      if (chunk.getValuesCount() == 1_000 || i == count - 1) {
        out.onNext(chunk.build());
        chunk = FormattedIdBatch.newBuilder();
        Status late = midStreamFailure.get();
        if (late != null) {
          out.onError(late.asRuntimeException());
          return;
        }
      }
    }
    out.onCompleted();
  }

  @Override
  public void parseFormattedId(ParseFormattedIdRequest req, StreamObserver<FormattedIdParts> out) {
    answer(req, out, parts.get());
  }

  @Override
  public void close() throws Exception {
    server.shutdownNow();
    server.awaitTermination(5, TimeUnit.SECONDS);
  }
}
