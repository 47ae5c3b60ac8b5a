package io.leaf.server.ordering;

import io.grpc.Context;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.leaf.server.store.SegmentStore;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.ListTagsResponse;
import io.leaf.v1.SetOrderingRequest;
import io.leaf.v1.Tag;
import io.leaf.v1.TagStatus;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * The admin side of orderings: CreateTag with an ordering, SetOrdering, and each tag answer showing
 * its ordering (and, in GetTag, the owner and lease epoch this server knows).
 *
 * <p>A switch to STRICT returns only after a whole TTL, once every server's knowledge of the former
 * ordering has expired (see {@link StrictTags}); no thread waits meanwhile. A tag never switches to
 * or from SCATTERED (see {@link ScatteredAdmin}).
 */
final class OrderingAdmin {

  private final OrderingStore store;
  private final SegmentStore tags;
  private final StrictTags strict;
  private final Executor database;
  private final ScheduledExecutorService timer;
  private final Duration ttl;
  private final ScatteredAdmin scattered;

  OrderingAdmin(
      OrderingStore store,
      SegmentStore tags,
      StrictTags strict,
      Executor database,
      ScheduledExecutorService timer) {
    this.store = store;
    this.tags = tags;
    this.strict = strict;
    this.database = database;
    this.timer = timer;
    this.ttl = strict.ttl();
    this.scattered = new ScatteredAdmin(store, tags, database, this::waitOutKnowledge);
  }

  ScatteredAdmin scattered() {
    return scattered;
  }

  void createTag(
      CreateTagRequest req,
      StreamObserver<Tag> out,
      BiConsumer<CreateTagRequest, StreamObserver<Tag>> plain) {
    TagOrdering ordering;
    try {
      ordering = accepted(req.getOrdering());
    } catch (StatusRuntimeExceptionHolder e) {
      out.onError(e.status.asRuntimeException());
      return;
    }
    ServerCallStreamObserver<Tag> server = (ServerCallStreamObserver<Tag>) out;
    if (ordering == TagOrdering.SCATTERED) {
      scattered.create(req, server, plain);
      return;
    }
    String bizTag = req.getBizTag();
    if (bizTag.isEmpty() || bizTag.length() > 128) {
      plain.accept(req, tag(server)); // refused there, with its own message
      return;
    }
    Context ctx = Context.current();
    LateObserver<Tag> late = new LateObserver<>(server);
    CompletableFuture.runAsync(() -> scattered.refuseIfScattered(bizTag), database)
        .whenComplete(
            (v, e) -> {
              if (e != null) {
                late.onError(ScatteredAdmin.statusOf(e).asRuntimeException());
              } else if (ordering == TagOrdering.PER_SERVER) {
                ctx.run(() -> plain.accept(req, tag(late)));
              } else {
                ctx.run(
                    () ->
                        plain.accept(
                            req,
                            new EnrichingObserver<>(
                                late,
                                t -> {
                                  store.setOrdering(t.getBizTag(), ordering);
                                  return t.toBuilder().setOrdering(ordering.toProto()).build();
                                },
                                database,
                                this::waitOutKnowledge)));
              }
            });
  }

  void setOrdering(
      SetOrderingRequest req,
      StreamObserver<Tag> out,
      BiConsumer<GetTagRequest, StreamObserver<TagStatus>> getTag) {
    TagOrdering ordering;
    try {
      ordering = accepted(req.getOrdering());
    } catch (StatusRuntimeExceptionHolder e) {
      out.onError(e.status.asRuntimeException());
      return;
    }
    String bizTag = req.getBizTag();
    Context ctx = Context.current();
    LateObserver<Tag> late = new LateObserver<>((ServerCallStreamObserver<Tag>) out);
    CompletableFuture.runAsync(
            () -> {
              if (tags.getTag(bizTag).isEmpty()) {
                throw Status.NOT_FOUND
                    .withDescription("tag " + bizTag + " does not exist")
                    .asRuntimeException();
              }
              TagOrdering now = store.read(bizTag).ordering();
              if ((now == TagOrdering.SCATTERED) != (ordering == TagOrdering.SCATTERED)) {
                throw Status.FAILED_PRECONDITION
                    .withDescription(
                        "tag "
                            + bizTag
                            + " is "
                            + now
                            + " and cannot become "
                            + ordering
                            + ": a scattered ID may equal an unscattered one the tag issued"
                            + " or will issue; a tag is SCATTERED from its creation (CreateTag) or"
                            + " never")
                    .asRuntimeException();
              }
              store.setOrdering(bizTag, ordering);
            },
            database)
        .thenCompose(v -> waitOutKnowledge())
        .whenComplete(
            (v, e) -> {
              if (e != null) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                Status s = Status.fromThrowable(cause);
                late.onError(
                    (s.getCode() == Status.Code.UNKNOWN
                            ? OrderingTableErrors.status(cause)
                                .withDescription(OrderingTableErrors.describe(cause))
                            : s)
                        .asRuntimeException());
                return;
              }
              ctx.run(
                  () ->
                      getTag.accept(
                          GetTagRequest.newBuilder().setBizTag(bizTag).build(),
                          new StatusToTag(late, ordering)));
            });
  }

  /** The tag's answer with its ordering. */
  ServerCallStreamObserver<Tag> tag(ServerCallStreamObserver<Tag> out) {
    return new EnrichingObserver<>(
        out,
        t -> t.toBuilder().setOrdering(store.read(t.getBizTag()).ordering().toProto()).build(),
        database);
  }

  /** GetTag's answer with the ordering, the owner and its epoch. */
  ServerCallStreamObserver<TagStatus> status(ServerCallStreamObserver<TagStatus> out) {
    return new EnrichingObserver<>(
        out,
        s -> {
          LeaseRow row = store.read(s.getTag().getBizTag());
          TagStatus.Builder b =
              s.toBuilder().setTag(s.getTag().toBuilder().setOrdering(row.ordering().toProto()));
          if (row.ordering() == TagOrdering.STRICT && row.remainingMs() > 0) {
            b.setOwner(row.owner()).setLeaseEpoch(row.epoch());
          }
          return b.build();
        },
        database);
  }

  /** A ListTags page with each tag's ordering. */
  ServerCallStreamObserver<ListTagsResponse> page(ServerCallStreamObserver<ListTagsResponse> out) {
    return new EnrichingObserver<>(
        out,
        page -> {
          Map<String, TagOrdering> orderings = new HashMap<>();
          store.readAll().forEach(r -> orderings.put(r.bizTag(), r.ordering()));
          ListTagsResponse.Builder b = page.toBuilder();
          for (int i = 0; i < b.getTagsCount(); i++) {
            Tag t = b.getTags(i);
            b.setTags(
                i,
                t.toBuilder()
                    .setOrdering(
                        orderings.getOrDefault(t.getBizTag(), TagOrdering.PER_SERVER).toProto()));
          }
          return b.build();
        },
        database);
  }

  /** Completes a whole TTL from now: every server's knowledge read before it has expired. */
  private CompletableFuture<Void> waitOutKnowledge() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    timer.schedule(() -> done.complete(null), ttl.toNanos(), TimeUnit.NANOSECONDS);
    return done;
  }

  private static TagOrdering accepted(io.leaf.v1.Ordering proto)
      throws StatusRuntimeExceptionHolder {
    TagOrdering ordering;
    try {
      ordering = TagOrdering.of(proto);
    } catch (IllegalArgumentException e) {
      throw new StatusRuntimeExceptionHolder(
          Status.INVALID_ARGUMENT.withDescription(e.getMessage()));
    }
    return ordering;
  }

  /** A refusal of the request's ordering. */
  private static final class StatusRuntimeExceptionHolder extends Exception {
    private final transient Status status;

    StatusRuntimeExceptionHolder(Status status) {
      super(status.getDescription(), null, false, false);
      this.status = status;
    }
  }

  /** GetTag's answer turned into SetOrdering's: the tag, with the ordering just set. */
  private static final class StatusToTag extends DelegatingObserver<TagStatus, Tag> {
    private final TagOrdering ordering;

    StatusToTag(ServerCallStreamObserver<Tag> out, TagOrdering ordering) {
      super(out);
      this.ordering = ordering;
    }

    @Override
    public void onNext(TagStatus value) {
      out.onNext(value.getTag().toBuilder().setOrdering(ordering.toProto()).build());
    }

    @Override
    public void onError(Throwable t) {
      out.onError(t);
    }

    @Override
    public void onCompleted() {
      out.onCompleted();
    }
  }
}
