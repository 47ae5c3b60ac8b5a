package io.leaf.server.ordering;

import com.google.common.base.Ticker;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.leaf.server.scattered.ScatteredIds;
import io.leaf.v1.FormattedId;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.NextIdResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * NextId and NextFormattedId by their tag's route: this server's own segments, scattered, issued
 * here as the STRICT tag's owner, or forwarded to the owner.
 *
 * <p>Thread-safe; no call waits on a thread.
 */
final class RoutedIds {

  private final StrictTags strict;
  private final Forwarder forwarder;
  private final Ticker ticker;

  RoutedIds(StrictTags strict, Forwarder forwarder, Ticker ticker) {
    this.strict = strict;
    this.forwarder = forwarder;
    this.ticker = ticker;
  }

  public CompletableFuture<Long> nextId(String bizTag, Supplier<CompletableFuture<Long>> local) {
    return issue(
        bizTag,
        local,
        LeafServiceGrpc.getNextIdMethod(),
        NextIdResponse::getId,
        ScatteredIds::scatter);
  }

  public CompletableFuture<String> nextFormattedId(
      String bizTag, Supplier<CompletableFuture<String>> local) {
    return issue(
        bizTag,
        local,
        LeafServiceGrpc.getNextFormattedIdMethod(),
        FormattedId::getValue,
        UnaryOperator.identity());
  }

  /**
   * The ID by the tag's route ({@code scatter} applied to a SCATTERED tag's); cancelling the answer
   * cancels the work under it (a waiting call's slot is freed when an HTTP client hangs up).
   */
  private <R, T> CompletableFuture<T> issue(
      String bizTag,
      Supplier<CompletableFuture<T>> local,
      MethodDescriptor<NextIdRequest, R> method,
      Function<R, T> value,
      UnaryOperator<T> scatter) {
    CompletableFuture<Route> routed = strict.route(bizTag, false);
    if (routed.isDone()
        && !routed.isCompletedExceptionally()
        && routed.join().kind() == Route.Kind.PER_SERVER) {
      return local.get();
    }
    CompletableFuture<T> result = new CompletableFuture<>();
    AtomicReference<CompletableFuture<T>> under = new AtomicReference<>();
    routed.whenComplete(
        (route, e) -> {
          if (e != null) {
            result.completeExceptionally(e.getCause() != null ? e.getCause() : e);
            return;
          }
          CompletableFuture<T> work;
          try {
            work = serve(bizTag, route, local, method, value, scatter);
          } catch (RuntimeException failed) {
            result.completeExceptionally(failed);
            return;
          }
          under.set(work);
          if (result.isCancelled()) {
            work.cancel(false);
          }
          work.whenComplete(
              (v, failed) -> {
                if (failed == null) {
                  result.complete(v);
                } else {
                  result.completeExceptionally(failed);
                }
              });
        });
    result.whenComplete(
        (v, e) -> {
          CompletableFuture<T> work = under.get();
          if (result.isCancelled() && work != null) {
            work.cancel(false);
          }
        });
    return result;
  }

  private <R, T> CompletableFuture<T> serve(
      String bizTag,
      Route route,
      Supplier<CompletableFuture<T>> local,
      MethodDescriptor<NextIdRequest, R> method,
      Function<R, T> value,
      UnaryOperator<T> scatter) {
    return switch (route.kind()) {
      case PER_SERVER -> local.get();
      case SCATTERED -> local.get().thenApply(scatter);
      case ISSUE ->
          local
              .get()
              .thenApply(
                  v -> {
                    if (!route.ownership().mayIssue(ticker.read(), route.term())) {
                      throw Status.UNAVAILABLE
                          .withDescription(
                              "tag "
                                  + bizTag
                                  + " is STRICT and this server's owner lease ended before the"
                                  + " answer could leave; retry")
                          .asRuntimeException();
                    }
                    return v;
                  });
      case FORWARD ->
          forwarder
              .call(
                  method,
                  route.owner(),
                  bizTag,
                  NextIdRequest.newBuilder().setBizTag(bizTag).build(),
                  () -> strict.ownerUnreachable(bizTag))
              .thenApply(value);
    };
  }
}
