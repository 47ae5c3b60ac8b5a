package io.leaf.server.grpc;

import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.leaf.server.config.ApiConfig;
import io.leaf.server.engine.IdRanges;
import io.leaf.server.engine.LimitExceededException;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.engine.WaitDeadline;
import io.leaf.server.formats.FormattedIssuer;
import io.leaf.server.request.StatusMapping;
import io.leaf.server.request.Validation;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.FormattedId;
import io.leaf.v1.FormattedIdBatch;
import io.leaf.v1.FormattedIdParts;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.IdBatch;
import io.leaf.v1.IdRange;
import io.leaf.v1.InitCacheRequest;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.ListTagsRequest;
import io.leaf.v1.ListTagsResponse;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.NextIdResponse;
import io.leaf.v1.ParseFormattedIdRequest;
import io.leaf.v1.ReserveIdsRequest;
import io.leaf.v1.ReservedIds;
import io.leaf.v1.SetFormatRequest;
import io.leaf.v1.Tag;
import io.leaf.v1.TagStatus;
import io.leaf.v1.UpdateStepRequest;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The gRPC face of Leaf: validates each request, calls the engine or store, maps failures.
 *
 * <p>Threading: the server runs this service on the transport's threads (a direct executor), so no
 * handler may block. NextId and NextIdBatch answer inline when the tag has IDs buffered; when it
 * has none they wait on the tag's pending load without a thread, are answered from the load's
 * completion (a loader thread) or their deadline (the timer thread), and a cancel drops the wait.
 * NextIdBatch streams do their bulk work on a small pump of their own ({@link BatchStream}). The
 * RPCs that read or write the database, and ReserveIds' dedicated write, run on {@link
 * DatabaseCalls}; those of a tag's row (CreateTag, UpdateStep, GetTag, ListTags and InitCache's
 * answer) and SetFormat are handled by {@link TagAdmin}, the formatted numbers by {@link
 * FormattedCalls}, behind this one registered service.
 *
 * <p>Limits: at most {@code maxStreams} NextIdBatch streams at once; waiting calls, first loads and
 * database calls have their own bounds. Every refusal is RESOURCE_EXHAUSTED naming the limit.
 */
public final class LeafGrpcService extends LeafServiceGrpc.LeafServiceImplBase {

  static final String STREAMS_FLAG = "--max-streams";

  private final SegmentAllocator allocator;
  private final TagAdmin admin;
  private final FormattedCalls formatted;
  private final long maxWaitNanos;
  private final int maxBatch;
  private final int maxStreams;
  private final DatabaseCalls database;
  private final Executor pump;

  /** What every NextIdBatch chunk in flight may hold together; derived from the JVM's limits. */
  private final StreamMemory streamMemory;

  private final AtomicInteger streams = new AtomicInteger();

  /**
   * @param admin the RPCs of a tag's row and of the ledger
   * @param api the limits: its calls' {@code maxWait} (longest a call waits for a segment when the
   *     caller set no shorter deadline) and {@code maxBatch} (the largest {@code count} NextIdBatch
   *     accepts), its streams' {@code maxStreams} and {@code maxMemory} (bytes the chunks of all
   *     open streams may hold in flight; 0: a quarter of what the JVM has for them)
   * @param database where the calls that touch the database run
   * @param pump where NextIdBatch streams take IDs and encode chunks; its queue must hold one task
   *     per open stream ({@code maxStreams})
   * @param issuer formatted numbers
   */
  public LeafGrpcService(
      SegmentAllocator allocator,
      TagAdmin admin,
      ApiConfig api,
      DatabaseCalls database,
      Executor pump,
      FormattedIssuer issuer) {
    this.allocator = allocator;
    this.admin = admin;
    this.formatted = new FormattedCalls(this, issuer);
    this.maxWaitNanos = api.calls().maxWait().toNanos();
    this.maxBatch = api.calls().maxBatch();
    this.maxStreams = api.streams().maxStreams();
    this.database = database;
    this.pump = pump;
    this.streamMemory =
        StreamMemory.forThisJvm(
            api.streams().maxMemory(), allocator::schedule, api.calls().maxWait());
  }

  @Override
  public void createTag(CreateTagRequest req, StreamObserver<Tag> out) {
    admin.createTag(req, out);
  }

  @Override
  public void initCache(InitCacheRequest req, StreamObserver<TagStatus> out) {
    String tag;
    try {
      tag = Validation.bizTag(req.getBizTag());
    } catch (RuntimeException e) {
      out.onError(StatusMapping.toStatus(e));
      return;
    }
    CompletableFuture<Void> loaded = allocator.initCache(tag, waitDeadline(callDeadline()));
    ((ServerCallStreamObserver<TagStatus>) out).setOnCancelHandler(() -> loaded.cancel(false));
    loaded.whenComplete(
        (v, e) -> {
          if (e == null) {
            admin.loaded(tag, out);
          } else if (!(e instanceof CancellationException)) {
            out.onError(StatusMapping.toStatus(e));
          }
        });
  }

  /** The fast path answers from the buffer inline; only a tag with nothing buffered goes on. */
  @Override
  public void nextId(NextIdRequest req, StreamObserver<NextIdResponse> out) {
    // Only validated tags are ever cached, so a hit needs no validation.
    long id = allocator.tryNextId(req.getBizTag());
    if (id != SegmentAllocator.NO_ID) {
      out.onNext(NextIdResponse.newBuilder().setId(id).build());
      out.onCompleted();
      return;
    }
    CompletableFuture<Long> next;
    try {
      next = allocator.nextId(Validation.bizTag(req.getBizTag()), waitDeadline(callDeadline()));
    } catch (RuntimeException e) {
      out.onError(StatusMapping.toStatus(e));
      return;
    }
    answer(out, next, v -> NextIdResponse.newBuilder().setId(v).build());
  }

  @Override
  public void nextIdBatch(NextIdBatchRequest req, StreamObserver<IdBatch> out) {
    String tag;
    int count;
    int chunk;
    try {
      tag = Validation.bizTag(req.getBizTag());
      count = Validation.count(req.getCount(), maxBatch);
      chunk = Validation.chunkSize(req.getChunkSize());
    } catch (RuntimeException e) {
      out.onError(StatusMapping.toStatus(e));
      return;
    }
    if (!openStream(out, "NextIdBatch")) {
      return;
    }
    Deadline deadline = callDeadline();
    new BatchStream<>(
            (ServerCallStreamObserver<IdBatch>) out,
            tag,
            n -> allocator.nextIds(tag, n, waitDeadline(deadline)),
            BatchStream.IDS,
            new BatchStream.Size(count, chunk),
            new BatchStream.Slot(streams::decrementAndGet, pump, streamMemory))
        .start();
  }

  /**
   * Takes one of the {@code --max-streams} slots that NextIdBatch and NextSnowflakeIdBatch share
   * (they share the stream pump too); refuses the call when none is free.
   */
  boolean openStream(StreamObserver<?> out, String rpc) {
    if (streams.incrementAndGet() > maxStreams) {
      streams.decrementAndGet();
      out.onError(
          StatusMapping.toStatus(
              new LimitExceededException(
                  "too many " + rpc + " streams open", maxStreams, STREAMS_FLAG)));
      return false;
    }
    return true;
  }

  /** Gives back a slot {@link #openStream} took. */
  void streamEnded() {
    streams.decrementAndGet();
  }

  /** The largest {@code count} a batch accepts ({@code --max-batch}). */
  int maxBatch() {
    return maxBatch;
  }

  /** The memory every batch stream's chunks in flight share. */
  StreamMemory streamMemory() {
    return streamMemory;
  }

  /** The threads that run every batch stream's work. */
  Executor pump() {
    return pump;
  }

  /** A tag holding enough answers inline; otherwise the rest comes from a database thread. */
  @Override
  public void reserveIds(ReserveIdsRequest req, StreamObserver<ReservedIds> out) {
    CompletableFuture<IdRanges> reserved;
    try {
      String tag = Validation.bizTag(req.getBizTag());
      int count = Validation.count(req.getCount(), maxBatch);
      reserved = allocator.reserve(tag, count, waitDeadline(callDeadline()), database::execute);
    } catch (RuntimeException e) {
      out.onError(StatusMapping.toStatus(e));
      return;
    }
    answer(out, reserved, LeafGrpcService::toProto);
  }

  @Override
  public void setFormat(SetFormatRequest req, StreamObserver<Tag> out) {
    admin.setFormat(req, out);
  }

  @Override
  public void nextFormattedId(NextIdRequest req, StreamObserver<FormattedId> out) {
    formatted.next(req, out);
  }

  @Override
  public void nextFormattedIdBatch(NextIdBatchRequest req, StreamObserver<FormattedIdBatch> out) {
    formatted.nextBatch(req, out);
  }

  @Override
  public void parseFormattedId(ParseFormattedIdRequest req, StreamObserver<FormattedIdParts> out) {
    formatted.parse(req, out);
  }

  @Override
  public void updateStep(UpdateStepRequest req, StreamObserver<Tag> out) {
    admin.updateStep(req, out);
  }

  @Override
  public void getTag(GetTagRequest req, StreamObserver<TagStatus> out) {
    admin.getTag(req, out);
  }

  @Override
  public void listTags(ListTagsRequest req, StreamObserver<ListTagsResponse> out) {
    admin.listTags(req, out);
  }

  @Override
  public void whoIssued(
      io.leaf.v1.WhoIssuedRequest req, StreamObserver<io.leaf.v1.IssuedRange> out) {
    admin.whoIssued(req, out);
  }

  /**
   * Checks {@code --max-stream-memory} against this JVM's memory, as the constructor would.
   *
   * @throws IllegalArgumentException more than half of what the JVM has for it
   */
  public static void checkStreamMemory(long requested) {
    StreamMemory.budget(requested, StreamMemory.jvmLimit());
  }

  /** NextIdBatch and NextSnowflakeIdBatch streams open now. */
  /** Where RPCs that talk to the database run (shared with SnowflakeService's lease calls). */
  DatabaseCalls database() {
    return database;
  }

  public int openStreams() {
    return streams.get();
  }

  /** The batch streams' memory budget ({@code --max-stream-memory}), in bytes. */
  public long streamMemoryBytes() {
    return streamMemory.capacityBytes();
  }

  /** Bytes of that budget the chunks in flight hold now. */
  public long streamMemoryUsedBytes() {
    return streamMemory.usedIds() * StreamMemory.BYTES_PER_ID;
  }

  /** The calling RPC's deadline; null when the caller set none. Read on the call's thread. */
  static Deadline callDeadline() {
    return Context.current().getDeadline();
  }

  /** How long a call may wait for a segment: the caller's deadline, capped by the server's. */
  WaitDeadline waitDeadline(Deadline deadline) {
    if (deadline == null) {
      return allocator.deadline(maxWaitNanos, false);
    }
    long callers = Math.max(0, deadline.timeRemaining(TimeUnit.NANOSECONDS));
    return callers < maxWaitNanos
        ? allocator.deadline(callers, true)
        : allocator.deadline(maxWaitNanos, false);
  }

  /** Answers with {@code result} once it completes; the caller's cancel drops it instead. */
  static <V, T> void answer(
      StreamObserver<T> out, CompletableFuture<V> result, Function<V, T> toProto) {
    if (!result.isDone()) {
      ((ServerCallStreamObserver<T>) out).setOnCancelHandler(() -> result.cancel(false));
    }
    result.whenComplete(
        (v, e) -> {
          if (e == null) {
            out.onNext(toProto.apply(v));
            out.onCompleted();
          } else if (!(e instanceof CancellationException)) {
            out.onError(StatusMapping.toStatus(e));
          }
        });
  }

  private static ReservedIds toProto(IdRanges r) {
    ReservedIds.Builder out = ReservedIds.newBuilder();
    for (int i = 0; i < r.rangeCount(); i++) {
      out.addRanges(IdRange.newBuilder().setStart(r.from(i)).setEnd(r.to(i)));
    }
    return out.build();
  }
}
