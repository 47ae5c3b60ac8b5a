package io.leaf.server.testing;

import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.leaf.v1.IdBatch;
import io.leaf.v1.NextIdBatchRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * A NextIdBatch reader with manual flow control: asks for {@code initial} messages, then hands each
 * batch to {@code afterBatch}, which may request more or cancel (by default it does neither, so the
 * reader stops reading).
 */
public final class ManualBatchReader
    implements ClientResponseObserver<NextIdBatchRequest, IdBatch> {
  public final List<Long> ids = new ArrayList<>();
  public final List<Integer> sizes = new ArrayList<>();

  /** Completes with the size of the first batch. */
  public final CompletableFuture<Integer> firstBatch = new CompletableFuture<>();

  /** Completes with the stream's final status (OK when it completed). */
  public final CompletableFuture<Status> closed = new CompletableFuture<>();

  private final int initial;
  private final BiConsumer<ManualBatchReader, ClientCallStreamObserver<NextIdBatchRequest>>
      afterBatch;
  private volatile ClientCallStreamObserver<NextIdBatchRequest> call;

  /** Reads {@code initial} messages, then none. */
  public ManualBatchReader(int initial) {
    this(initial, (r, c) -> {});
  }

  public ManualBatchReader(
      int initial,
      BiConsumer<ManualBatchReader, ClientCallStreamObserver<NextIdBatchRequest>> afterBatch) {
    this.initial = initial;
    this.afterBatch = afterBatch;
  }

  /** Cancels the stream from the reader's side. */
  public void cancel(String message) {
    call.cancel(message, null);
  }

  @Override
  public void beforeStart(ClientCallStreamObserver<NextIdBatchRequest> requestStream) {
    call = requestStream;
    call.disableAutoRequestWithInitial(initial);
  }

  @Override
  public synchronized void onNext(IdBatch batch) {
    ids.addAll(batch.getIdsList());
    sizes.add(batch.getIdsCount());
    firstBatch.complete(batch.getIdsCount());
    afterBatch.accept(this, call);
  }

  @Override
  public void onError(Throwable t) {
    closed.complete(Status.fromThrowable(t));
  }

  @Override
  public void onCompleted() {
    closed.complete(Status.OK);
  }
}
