package io.leaf.server.ordering;

import com.google.common.base.Ticker;
import io.grpc.Context;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.leaf.server.scattered.ScatteredIds;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.DecodeScatteredIdRequest;
import io.leaf.v1.FormattedId;
import io.leaf.v1.FormattedIdBatch;
import io.leaf.v1.FormattedIdParts;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.IdBatch;
import io.leaf.v1.InitCacheRequest;
import io.leaf.v1.IssuedRange;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.ListTagsRequest;
import io.leaf.v1.ListTagsResponse;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.NextIdResponse;
import io.leaf.v1.NextSequenceRequest;
import io.leaf.v1.ParseFormattedIdRequest;
import io.leaf.v1.ReserveIdsRequest;
import io.leaf.v1.ReservedIds;
import io.leaf.v1.ScatteredIdParts;
import io.leaf.v1.Sequence;
import io.leaf.v1.SetFormatRequest;
import io.leaf.v1.SetOrderingRequest;
import io.leaf.v1.Tag;
import io.leaf.v1.TagStatus;
import io.leaf.v1.UpdateStepRequest;
import io.leaf.v1.WhoIssuedRequest;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;

/**
 * LeafService with ordering: the calls that issue IDs of a STRICT tag are served by its owner
 * (here, or forwarded one hop), a SCATTERED tag's IDs leave scattered, ReserveIds is refused on
 * both, and the admin answers show each tag's ordering; everything else is the plain service's.
 *
 * <p>Threading: as the plain service's, no handler blocks; routing that needs the database runs on
 * the ordering's executor and continues from there in the caller's context.
 */
final class OrderedLeafService extends LeafServiceGrpc.LeafServiceImplBase {

  private final LeafServiceGrpc.LeafServiceImplBase plain;
  private final StrictTags strict;
  private final Forwarder forwarder;
  private final OrderingAdmin admin;
  private final SequenceCalls sequences;
  private final Ticker ticker;

  OrderedLeafService(
      LeafServiceGrpc.LeafServiceImplBase plain,
      StrictTags strict,
      Forwarder forwarder,
      OrderingAdmin admin,
      SequenceCalls sequences,
      Ticker ticker) {
    this.plain = plain;
    this.strict = strict;
    this.forwarder = forwarder;
    this.admin = admin;
    this.sequences = sequences;
    this.ticker = ticker;
  }

  @Override
  public void nextId(NextIdRequest req, StreamObserver<NextIdResponse> out) {
    String bizTag = req.getBizTag();
    route(
        bizTag,
        out,
        (route, to) -> {
          if (route.kind() != Route.Kind.FORWARD) {
            serve(
                bizTag,
                route,
                to,
                req,
                plain::nextId,
                LeafServiceGrpc.getNextIdMethod(),
                false,
                ScatteredIds::scatter);
            return;
          }
          // With other NextId calls to the same owner, as one NextIdBatch (ForwardBatcher).
          CompletableFuture<Long> id =
              forwarder.nextId(route.owner(), bizTag, () -> strict.ownerUnreachable(bizTag));
          to.setOnCancelHandler(() -> id.cancel(false));
          id.whenComplete(
              (v, e) -> {
                if (e instanceof CancellationException) {
                  return; // the caller cancelled: its ID stays unused
                }
                if (e != null) {
                  to.onError(e instanceof CompletionException ? e.getCause() : e);
                } else {
                  to.onNext(NextIdResponse.newBuilder().setId(v).build());
                  to.onCompleted();
                }
              });
        });
  }

  @Override
  public void nextIdBatch(NextIdBatchRequest req, StreamObserver<IdBatch> out) {
    routed(
        req.getBizTag(),
        req,
        out,
        plain::nextIdBatch,
        LeafServiceGrpc.getNextIdBatchMethod(),
        true,
        ScatteredIds::scatter);
  }

  @Override
  public void nextFormattedId(NextIdRequest req, StreamObserver<FormattedId> out) {
    routed(
        req.getBizTag(),
        req,
        out,
        plain::nextFormattedId,
        LeafServiceGrpc.getNextFormattedIdMethod(),
        false,
        UnaryOperator.identity());
  }

  @Override
  public void nextFormattedIdBatch(NextIdBatchRequest req, StreamObserver<FormattedIdBatch> out) {
    routed(
        req.getBizTag(),
        req,
        out,
        plain::nextFormattedIdBatch,
        LeafServiceGrpc.getNextFormattedIdBatchMethod(),
        true,
        UnaryOperator.identity());
  }

  @Override
  public void nextSequence(NextSequenceRequest req, StreamObserver<Sequence> out) {
    sequences.serve(req, out);
  }

  @Override
  public void reserveIds(ReserveIdsRequest req, StreamObserver<ReservedIds> out) {
    String bizTag = req.getBizTag();
    if (bizTag.isEmpty() || bizTag.length() > 128) {
      plain.reserveIds(req, out);
      return;
    }
    CompletableFuture<TagOrdering> ordering = strict.ordering(bizTag);
    ServerCallStreamObserver<ReservedIds> to =
        ordering.isDone()
            ? (ServerCallStreamObserver<ReservedIds>) out
            : new LateObserver<>((ServerCallStreamObserver<ReservedIds>) out);
    Context ctx = Context.current();
    ordering.whenComplete(
        (o, e) -> {
          if (e != null) {
            to.onError(
                Status.fromThrowable(e.getCause() != null ? e.getCause() : e).asRuntimeException());
          } else if (o == TagOrdering.PER_SERVER) {
            ctx.run(() -> plain.reserveIds(req, to));
          } else {
            to.onError(
                Status.FAILED_PRECONDITION
                    .withDescription(
                        "ReserveIds is refused on tag "
                            + bizTag
                            + ": its ordering is "
                            + o
                            + ", which a client's cache of IDs"
                            + " cannot keep")
                    .asRuntimeException());
          }
        });
  }

  /**
   * Serves {@code req} as its route says: the plain service (PER_SERVER), the plain service with
   * every answer passed through {@code scatter} (SCATTERED), the plain service with every answer
   * checked against the owner's term (ISSUE), or the owner (FORWARD).
   */
  private <Q, R> void routed(
      String bizTag,
      Q req,
      StreamObserver<R> out,
      BiConsumer<Q, StreamObserver<R>> local,
      MethodDescriptor<Q, R> method,
      boolean stream,
      UnaryOperator<R> scatter) {
    route(
        bizTag, out, (route, to) -> serve(bizTag, route, to, req, local, method, stream, scatter));
  }

  private <Q, R> void serve(
      String bizTag,
      Route route,
      ServerCallStreamObserver<R> to,
      Q req,
      BiConsumer<Q, StreamObserver<R>> local,
      MethodDescriptor<Q, R> method,
      boolean stream,
      UnaryOperator<R> scatter) {
    switch (route.kind()) {
      case PER_SERVER -> local.accept(req, to);
      case SCATTERED -> local.accept(req, new ScatteringObserver<>(to, scatter));
      case ISSUE -> local.accept(req, new GuardedObserver<>(to, route, ticker, bizTag));
      default -> {
        Runnable unreachable = () -> strict.ownerUnreachable(bizTag);
        if (stream) {
          forwarder.streaming(method, route.owner(), bizTag, req, to, unreachable);
        } else {
          forwarder.unary(method, route.owner(), bizTag, req, to, unreachable);
        }
      }
    }
  }

  /**
   * Runs {@code then} with the tag's route and the observer to answer on: inline when the route is
   * known now, else in the call's context once the database has answered (on a {@link
   * LateObserver}, made now). A tag name the plain service would refuse goes to it as PER_SERVER,
   * which refuses it with its own message.
   */
  private <R> void route(
      String bizTag, StreamObserver<R> out, BiConsumer<Route, ServerCallStreamObserver<R>> then) {
    ServerCallStreamObserver<R> server = (ServerCallStreamObserver<R>) out;
    if (bizTag.isEmpty() || bizTag.length() > 128) {
      then.accept(Route.PER_SERVER, server);
      return;
    }
    CompletableFuture<Route> route = strict.route(bizTag, ForwardedMark.forwarded());
    if (route.isDone() && !route.isCompletedExceptionally()) {
      Route r = route.join();
      OwnerHeader.name(r, strict.self());
      then.accept(r, server);
      return;
    }
    LateObserver<R> late = new LateObserver<>(server);
    Context ctx = Context.current();
    route.whenComplete(
        (r, e) -> {
          if (e != null) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            late.onError(Status.fromThrowable(cause).asRuntimeException());
          } else {
            try {
              ctx.run(
                  () -> {
                    OwnerHeader.name(r, strict.self());
                    then.accept(r, late);
                  });
            } catch (RuntimeException | Error failed) {
              // Thrown here it would be lost in this completion, and the call left to its
              // deadline.
              tellLate(late, bizTag, failed);
            }
          }
        });
  }

  private static <R> void tellLate(LateObserver<R> late, String bizTag, Throwable failed) {
    Status s = Status.fromThrowable(failed);
    if (s.getCode() == Status.Code.UNKNOWN) {
      s = Status.INTERNAL.withDescription("tag " + bizTag + ": " + failed).withCause(failed);
    }
    try {
      late.onError(s.asRuntimeException());
    } catch (IllegalStateException closed) {
      // The call had already been answered or cancelled.
    }
  }

  @Override
  public void createTag(CreateTagRequest req, StreamObserver<Tag> out) {
    admin.createTag(req, out, plain::createTag);
  }

  @Override
  public void setOrdering(SetOrderingRequest req, StreamObserver<Tag> out) {
    admin.setOrdering(req, out, plain::getTag);
  }

  @Override
  public void getTag(GetTagRequest req, StreamObserver<TagStatus> out) {
    plain.getTag(req, admin.status((ServerCallStreamObserver<TagStatus>) out));
  }

  @Override
  public void listTags(ListTagsRequest req, StreamObserver<ListTagsResponse> out) {
    plain.listTags(req, admin.page((ServerCallStreamObserver<ListTagsResponse>) out));
  }

  @Override
  public void updateStep(UpdateStepRequest req, StreamObserver<Tag> out) {
    plain.updateStep(req, admin.tag((ServerCallStreamObserver<Tag>) out));
  }

  @Override
  public void setFormat(SetFormatRequest req, StreamObserver<Tag> out) {
    plain.setFormat(req, admin.tag((ServerCallStreamObserver<Tag>) out));
  }

  @Override
  public void initCache(InitCacheRequest req, StreamObserver<TagStatus> out) {
    plain.initCache(req, out);
  }

  @Override
  public void parseFormattedId(ParseFormattedIdRequest req, StreamObserver<FormattedIdParts> out) {
    plain.parseFormattedId(req, out);
  }

  @Override
  public void decodeScatteredId(
      DecodeScatteredIdRequest req, StreamObserver<ScatteredIdParts> out) {
    admin.scattered().decode(req, out);
  }

  @Override
  public void whoIssued(WhoIssuedRequest req, StreamObserver<IssuedRange> out) {
    plain.whoIssued(req, out);
  }
}
