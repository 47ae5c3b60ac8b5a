package io.leaf.server.ordering;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Adds what the ordering knows to an admin answer (its ordering, owner and lease) on {@code
 * database}, then passes it on; the call ends only after {@code before} (SetOrdering's wait).
 */
final class EnrichingObserver<T> extends DelegatingObserver<T, T> {

  private final Function<T, T> enrich;
  private final Executor database;
  private final Supplier<CompletableFuture<Void>> before;
  private CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);

  EnrichingObserver(
      ServerCallStreamObserver<T> out,
      Function<T, T> enrich,
      Executor database,
      Supplier<CompletableFuture<Void>> before) {
    super(out);
    this.enrich = enrich;
    this.database = database;
    this.before = before;
  }

  EnrichingObserver(ServerCallStreamObserver<T> out, Function<T, T> enrich, Executor database) {
    this(out, enrich, database, () -> CompletableFuture.completedFuture(null));
  }

  @Override
  public void onNext(T value) {
    chain =
        chain
            .thenApplyAsync(v -> enrich.apply(value), database)
            .thenCompose(enriched -> before.get().thenApply(v -> enriched))
            .thenAccept(out::onNext);
  }

  @Override
  public void onError(Throwable t) {
    chain.whenComplete((v, e) -> out.onError(t));
  }

  @Override
  public void onCompleted() {
    chain.whenComplete(
        (v, e) -> {
          if (e == null) {
            out.onCompleted();
          } else {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            out.onError(
                Status.fromThrowable(cause).getCode() != Status.Code.UNKNOWN
                    ? cause
                    : Status.UNAVAILABLE
                        .withDescription(
                            "the ordering table cannot be used" + " now: " + cause.getMessage())
                        .asRuntimeException());
          }
        });
  }
}
