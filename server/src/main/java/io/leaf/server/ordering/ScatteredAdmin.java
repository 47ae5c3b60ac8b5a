package io.leaf.server.ordering;

import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.leaf.server.request.InvalidArgumentException;
import io.leaf.server.request.StatusMapping;
import io.leaf.server.request.Validation;
import io.leaf.server.scattered.ScatteredIds;
import io.leaf.server.store.SegmentStore;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.DecodeScatteredIdRequest;
import io.leaf.v1.ScatteredIdParts;
import io.leaf.v1.Tag;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.jooq.exception.DataAccessException;

/**
 * The admin side of SCATTERED tags: CreateTag with SCATTERED stores the ordering and waits out
 * every server's former knowledge before the tag exists; a name stored as SCATTERED stays so; and
 * DecodeScatteredId gives an ID's sequence back. No thread waits.
 */
final class ScatteredAdmin {
  /*
   * Why the ordering comes before the tag: a server that read "no row" (PER_SERVER) for a name,
   * say for a call made before the tag existed, trusts it for four fifths of the TTL. Were the
   * leaf_alloc row inserted first, such a server would issue unscattered values, and a plain value
   * may equal a scattered one (the reversal is a bijection of all positive values, not a map into
   * a range of their own). So: the row says SCATTERED, a whole TTL passes, then leaf_alloc's row is
   * inserted; every server serving the tag then knows it is SCATTERED.
   *
   * For the same reason a tag never switches to or from SCATTERED (OrderingAdmin refuses it), and
   * a row left SCATTERED by a CreateTag that failed after writing it stays (its insert may have
   * committed unseen): CreateTag with another ordering on that name is refused, one with SCATTERED
   * goes on.
   */

  private final OrderingStore store;
  private final SegmentStore tags;
  private final Executor database;
  private final Supplier<CompletableFuture<Void>> waitOutKnowledge;

  ScatteredAdmin(
      OrderingStore store,
      SegmentStore tags,
      Executor database,
      Supplier<CompletableFuture<Void>> waitOutKnowledge) {
    this.store = store;
    this.tags = tags;
    this.database = database;
    this.waitOutKnowledge = waitOutKnowledge;
  }

  /** CreateTag with SCATTERED: the ordering stored, the TTL waited out, then the plain create. */
  void create(
      CreateTagRequest req,
      ServerCallStreamObserver<Tag> out,
      BiConsumer<CreateTagRequest, StreamObserver<Tag>> plain) {
    String bizTag = req.getBizTag();
    try {
      Validation.newBizTag(bizTag);
      Validation.maxId(req.getMaxId());
      Validation.createStep(req.getStep());
      Validation.description(req.getDescription());
    } catch (InvalidArgumentException e) {
      plain.accept(req, out); // refused there, with its own message; nothing stored
      return;
    }
    Context ctx = Context.current();
    LateObserver<Tag> late = new LateObserver<>(out);
    CompletableFuture.runAsync(
            () -> {
              if (tags.getTag(bizTag).isPresent()) {
                throw Status.ALREADY_EXISTS
                    .withDescription(
                        "tag "
                            + bizTag
                            + " exists already; a tag is SCATTERED from its creation or never")
                    .asRuntimeException();
              }
              store.setOrdering(bizTag, TagOrdering.SCATTERED);
            },
            database)
        .thenCompose(v -> waitOutKnowledge.get())
        .whenComplete(
            (v, e) -> {
              if (e != null) {
                late.onError(statusOf(e).asRuntimeException());
                return;
              }
              ctx.run(
                  () ->
                      plain.accept(
                          req,
                          new EnrichingObserver<>(
                              late,
                              t ->
                                  t.toBuilder()
                                      .setOrdering(TagOrdering.SCATTERED.toProto())
                                      .build(),
                              Runnable::run)));
            });
  }

  /**
   * Refuses a CreateTag of another ordering on a name stored as SCATTERED; runs on the database
   * executor.
   */
  void refuseIfScattered(String bizTag) {
    if (store.read(bizTag).ordering() == TagOrdering.SCATTERED) {
      throw Status.FAILED_PRECONDITION
          .withDescription(
              "the name "
                  + bizTag
                  + " is stored as SCATTERED (leaf_tag_lease) by an earlier CreateTag; create it"
                  + " with ordering SCATTERED")
          .asRuntimeException();
    }
  }

  /** DecodeScatteredId: the sequence an ID of a SCATTERED tag was made from. */
  void decode(DecodeScatteredIdRequest req, StreamObserver<ScatteredIdParts> out) {
    String bizTag = req.getBizTag();
    long id = req.getId();
    try {
      Validation.bizTag(bizTag);
      if (id <= 0) {
        throw new InvalidArgumentException("id must be positive (a scattered ID is), got " + id);
      }
    } catch (InvalidArgumentException e) {
      out.onError(Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
      return;
    }
    LateObserver<ScatteredIdParts> late =
        new LateObserver<>((ServerCallStreamObserver<ScatteredIdParts>) out);
    CompletableFuture.supplyAsync(
            () -> {
              if (tags.getTag(bizTag).isEmpty()) {
                throw Status.NOT_FOUND
                    .withDescription("tag " + bizTag + " does not exist")
                    .asRuntimeException();
              }
              TagOrdering ordering = store.read(bizTag).ordering();
              if (ordering != TagOrdering.SCATTERED) {
                throw Status.FAILED_PRECONDITION
                    .withDescription(
                        "tag "
                            + bizTag
                            + " has ordering "
                            + ordering
                            + ": its IDs are not scattered")
                    .asRuntimeException();
              }
              return ScatteredIdParts.newBuilder().setSequence(ScatteredIds.sequence(id)).build();
            },
            database)
        .whenComplete(
            (parts, e) -> {
              if (e != null) {
                late.onError(statusOf(e).asRuntimeException());
              } else {
                late.onNext(parts);
                late.onCompleted();
              }
            });
  }

  /** The status of a failure here: the ordering table's, the tag store's, or the one raised. */
  static Status statusOf(Throwable e) {
    Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    if (cause instanceof StatusRuntimeException sre) {
      return sre.getStatus();
    }
    if (cause instanceof DataAccessException) {
      return OrderingTableErrors.status(cause).withDescription(OrderingTableErrors.describe(cause));
    }
    return StatusMapping.status(cause);
  }
}
