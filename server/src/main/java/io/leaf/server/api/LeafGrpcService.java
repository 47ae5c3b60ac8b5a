package io.leaf.server.api;

import com.google.common.base.Ticker;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.leaf.server.engine.IdRanges;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.engine.TagSnapshot;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.TagNotFoundException;
import io.leaf.server.store.TagPage;
import io.leaf.server.store.TagRecord;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.IdBatch;
import io.leaf.v1.InitCacheRequest;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.ListTagsRequest;
import io.leaf.v1.ListTagsResponse;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.NextIdResponse;
import io.leaf.v1.Segment;
import io.leaf.v1.Tag;
import io.leaf.v1.TagStatus;
import io.leaf.v1.UpdateStepRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** The gRPC face of Leaf: validates each request, calls the engine or store, maps failures. */
public final class LeafGrpcService extends LeafServiceGrpc.LeafServiceImplBase {

  private final SegmentAllocator allocator;
  private final SegmentStore store;
  private final InstantSource clock;
  private final long maxWaitNanos;
  private final int maxBatch;

  /**
   * @param maxWait longest a call waits for a segment when the caller set no shorter deadline
   * @param maxBatch the largest {@code count} NextIdBatch accepts
   */
  public LeafGrpcService(SegmentAllocator allocator, SegmentStore store, InstantSource clock,
      Duration maxWait, int maxBatch) {
    this.allocator = allocator;
    this.store = store;
    this.clock = clock;
    this.maxWaitNanos = maxWait.toNanos();
    this.maxBatch = maxBatch;
  }

  @Override
  public void createTag(CreateTagRequest req, StreamObserver<Tag> out) {
    unary(out, () -> {
      String tag = Validation.bizTag(req.getBizTag());
      long maxId = Validation.maxId(req.getMaxId());
      int step = Validation.createStep(req.getStep());
      String description = Validation.description(req.getDescription());
      return toProto(store.createTag(tag, maxId, step, description.isEmpty() ? null : description));
    });
  }

  @Override
  public void initCache(InitCacheRequest req, StreamObserver<TagStatus> out) {
    unary(out, () -> {
      String tag = Validation.bizTag(req.getBizTag());
      allocator.initCache(tag, waitNanos());
      return status(tag);
    });
  }

  @Override
  public void nextId(NextIdRequest req, StreamObserver<NextIdResponse> out) {
    unary(out, () -> {
      String tag = Validation.bizTag(req.getBizTag());
      return NextIdResponse.newBuilder().setId(allocator.nextId(tag, waitNanos())).build();
    });
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
    ServerCallStreamObserver<IdBatch> call = (ServerCallStreamObserver<IdBatch>) out;
    BatchStream stream = new BatchStream(call, tag, count, chunk);
    // A handler must be set for onNext after a cancel to be dropped rather than throw; the drain
    // loop itself watches the call's context. IDs taken for an unsent chunk are a gap.
    call.setOnCancelHandler(() -> { });
    // gRPC runs this once the call is ready and again whenever the client drains its window, so
    // a slow reader holds at most one chunk in flight here instead of the whole batch.
    call.setOnReadyHandler(stream::drain);
  }

  @Override
  public void updateStep(UpdateStepRequest req, StreamObserver<Tag> out) {
    unary(out, () -> {
      String tag = Validation.bizTag(req.getBizTag());
      int step = Validation.updateStep(req.getStep());
      TagRecord updated = store.updateStep(tag, step);
      allocator.onStepUpdated(tag, step);
      return toProto(updated);
    });
  }

  @Override
  public void getTag(GetTagRequest req, StreamObserver<TagStatus> out) {
    unary(out, () -> status(Validation.bizTag(req.getBizTag())));
  }

  @Override
  public void listTags(ListTagsRequest req, StreamObserver<ListTagsResponse> out) {
    unary(out, () -> {
      int pageSize = Validation.pageSize(req.getPageSize());
      String after = decodePageToken(req.getPageToken());
      TagPage page = store.listTags(after, pageSize);
      ListTagsResponse.Builder resp = ListTagsResponse.newBuilder();
      page.tags().forEach(t -> resp.addTags(toProto(t)));
      if (page.hasMore()) {
        resp.setNextPageToken(encodePageToken(page.tags().get(page.tags().size() - 1).bizTag()));
      }
      return resp.build();
    });
  }

  /** Streams one NextIdBatch call chunk by chunk as the transport becomes ready. */
  private final class BatchStream {
    private final ServerCallStreamObserver<IdBatch> call;
    private final String tag;
    private final int chunk;
    private int remaining;
    private boolean finished;

    BatchStream(ServerCallStreamObserver<IdBatch> call, String tag, int count, int chunk) {
      this.call = call;
      this.tag = tag;
      this.remaining = count;
      this.chunk = chunk;
    }

    /** Runs on the call's serialized executor, never concurrently with itself. */
    void drain() {
      if (finished) {
        return;
      }
      // The transport cancels the call's context at once, even while this method runs.
      Context context = Context.current();
      try {
        while (remaining > 0 && call.isReady() && !context.isCancelled()) {
          int n = Math.min(chunk, remaining);
          IdRanges ids = allocator.nextIds(tag, n, waitNanos());
          IdBatch.Builder batch = IdBatch.newBuilder();
          ids.forEach(batch::addIds);
          call.onNext(batch.build());
          remaining -= n;
        }
        if (context.isCancelled()) {
          finished = true;
        } else if (remaining == 0) {
          finished = true;
          call.onCompleted();
        }
      } catch (RuntimeException e) {
        finished = true;
        if (!context.isCancelled()) {
          call.onError(StatusMapping.toStatus(e));
        }
      }
    }
  }

  private TagStatus status(String tag) {
    TagRecord row = store.getTag(tag).orElseThrow(() -> new TagNotFoundException(tag));
    TagStatus.Builder out = TagStatus.newBuilder().setTag(toProto(row)).setEffectiveStep(row.step());
    Optional<TagSnapshot> snap = allocator.snapshot(tag);
    snap.ifPresent(s -> {
      out.setCached(true).setCurrent(toProto(s.current()));
      if (s.next() != null) {
        out.setNext(toProto(s.next()));
      }
      if (s.effectiveStep() > 0) {
        out.setEffectiveStep(s.effectiveStep());
      }
      Ticker ticker = allocator.ticker();
      long agoMillis = TimeUnit.NANOSECONDS.toMillis(ticker.read() - s.lastAccessNanos());
      out.setLastAccessTime(clock.millis() - Math.max(0, agoMillis));
    });
    return out.build();
  }

  /** How long this call may wait for a segment: the caller's deadline, capped by the server's. */
  private long waitNanos() {
    Deadline deadline = Context.current().getDeadline();
    if (deadline == null) {
      return maxWaitNanos;
    }
    return Math.max(0, Math.min(maxWaitNanos, deadline.timeRemaining(TimeUnit.NANOSECONDS)));
  }

  private static <T> void unary(StreamObserver<T> out, Supplier<T> work) {
    T result;
    try {
      result = work.get();
    } catch (RuntimeException e) {
      out.onError(StatusMapping.toStatus(e));
      return;
    }
    out.onNext(result);
    out.onCompleted();
  }

  private static Tag toProto(TagRecord r) {
    Tag.Builder t = Tag.newBuilder().setBizTag(r.bizTag()).setMaxId(r.maxId()).setStep(r.step())
        .setUpdateTime(r.updateTime());
    if (r.description() != null) {
      t.setDescription(r.description());
    }
    return t.build();
  }

  private static Segment toProto(TagSnapshot.SegmentView s) {
    return Segment.newBuilder().setStart(s.start()).setEnd(s.end()).setCursor(s.cursor()).build();
  }

  private static String encodePageToken(String lastTag) {
    return Base64.getUrlEncoder().withoutPadding()
        .encodeToString(("after:" + lastTag).getBytes(StandardCharsets.UTF_8));
  }

  private static String decodePageToken(String token) {
    if (token.isEmpty()) {
      return null;
    }
    try {
      String decoded = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
      if (decoded.startsWith("after:")) {
        return decoded.substring("after:".length());
      }
    } catch (IllegalArgumentException e) {
      // falls through to the error below
    }
    throw new InvalidArgumentException("page_token is not a token returned by ListTags, got \""
        + (token.length() > 40 ? token.substring(0, 40) + "…" : token) + "\"");
  }
}
