package io.leaf.server.ordering;

import com.google.common.base.Ticker;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.leaf.server.request.StatusMapping;
import io.leaf.server.request.Validation;
import io.leaf.server.sequence.OwnerTerm;
import io.leaf.server.sequence.Sequences;
import io.leaf.server.store.SegmentStore;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextSequenceRequest;
import io.leaf.v1.Sequence;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * NextSequence for both transports: a STRICT tag's key served by the owner of the key's group (here
 * through {@link Sequences}, or forwarded one hop), NOT_FOUND for an unknown tag,
 * FAILED_PRECONDITION for a tag that is not STRICT, INVALID_ARGUMENT for a bad tag name or key.
 *
 * <p>Thread-safe; no call waits on a thread: routing and the sections' statements continue from
 * their completions.
 */
final class SequenceCalls {

  /**
   * Who decides: the tags' orderings ({@code tags}) and the owners of the sequence groups ({@code
   * groups}, leases named {@link Sequences#leaseKey}).
   */
  record Owners(StrictTags tags, StrictTags groups) {}

  private final StrictTags strict;
  private final StrictTags groups;
  private final Forwarder forwarder;
  private final Sequences sequences;
  private final SegmentStore tags;
  private final Executor database;
  private final Ticker ticker;

  SequenceCalls(
      Owners owners,
      Forwarder forwarder,
      Sequences sequences,
      SegmentStore tags,
      Executor database,
      Ticker ticker) {
    this.strict = owners.tags();
    this.groups = owners.groups();
    this.forwarder = forwarder;
    this.sequences = sequences;
    this.tags = tags;
    this.database = database;
    this.ticker = ticker;
  }

  /** The gRPC call: answered inline when the section has the value, else from its completion. */
  void serve(NextSequenceRequest req, StreamObserver<Sequence> out) {
    ServerCallStreamObserver<Sequence> server = (ServerCallStreamObserver<Sequence>) out;
    CompletableFuture<Long> next = next(req.getBizTag(), req.getKey(), ForwardedMark.forwarded());
    if (!next.isDone()) {
      server.setOnCancelHandler(() -> next.cancel(false));
    }
    next.whenComplete(
        (value, e) -> {
          if (e == null) {
            server.onNext(Sequence.newBuilder().setValue(value).build());
            server.onCompleted();
            return;
          }
          Throwable cause = unwrap(e);
          if (!(cause instanceof CancellationException)) {
            server.onError(StatusMapping.toStatus(cause));
          }
        });
  }

  /**
   * The key's next value; a forwarded call carries the current gRPC context's deadline.
   *
   * @param forwarded the call came from another server (it is never forwarded again)
   */
  CompletableFuture<Long> next(String bizTag, String key, boolean forwarded) {
    long hash;
    try {
      Validation.bizTag(bizTag);
      hash = Sequences.hash(key);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    String lease = Sequences.leaseKey(bizTag, Sequences.group(hash));
    Context ctx = Context.current();
    return strict
        .ordering(bizTag)
        .thenCompose(
            o ->
                o == TagOrdering.STRICT
                    ? groups
                        .route(lease, forwarded)
                        .thenCompose(route -> serve(route, bizTag, key, hash, ctx))
                    : notStrict(bizTag, o));
  }

  /** The call by its group's route; no owner header: the tag's keys have several owners. */
  private CompletableFuture<Long> serve(
      Route route, String bizTag, String key, long hash, Context ctx) {
    return switch (route.kind()) {
      case ISSUE -> sequences.next(bizTag, hash, term(route));
      case FORWARD -> {
        int group = Sequences.group(hash);
        NextSequenceRequest req =
            NextSequenceRequest.newBuilder().setBizTag(bizTag).setKey(key).build();
        try {
          yield ctx.call(
                  () ->
                      forwarder.call(
                          LeafServiceGrpc.getNextSequenceMethod(),
                          route.owner(),
                          bizTag,
                          req,
                          () -> groups.ownerUnreachable(Sequences.leaseKey(bizTag, group))))
              .thenApply(Sequence::getValue);
        } catch (Exception e) {
          yield CompletableFuture.failedFuture(e);
        }
      }
      case PER_SERVER -> notStrict(bizTag, TagOrdering.PER_SERVER);
      case SCATTERED -> notStrict(bizTag, TagOrdering.SCATTERED);
    };
  }

  private OwnerTerm term(Route route) {
    TagOwnership own = route.ownership();
    long epoch = own.epoch();
    long term = route.term();
    String self = strict.self();
    return new OwnerTerm() {
      @Override
      public long id() {
        return term;
      }

      @Override
      public String owner() {
        return self;
      }

      @Override
      public long epoch() {
        return epoch;
      }

      @Override
      public boolean mayIssue() {
        return own.mayIssue(ticker.read(), term);
      }
    };
  }

  private CompletableFuture<Long> notStrict(String bizTag, TagOrdering ordering) {
    return CompletableFuture.supplyAsync(
        () -> {
          if (tags.getTag(bizTag).isEmpty()) {
            throw Status.NOT_FOUND
                .withDescription("tag " + bizTag + " does not exist")
                .asRuntimeException();
          }
          throw Status.FAILED_PRECONDITION
              .withDescription(
                  "NextSequence needs a STRICT tag; tag "
                      + bizTag
                      + " has ordering "
                      + ordering
                      + " (SetOrdering makes it STRICT)")
              .asRuntimeException();
        },
        database);
  }

  private static Throwable unwrap(Throwable e) {
    return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
  }
}
