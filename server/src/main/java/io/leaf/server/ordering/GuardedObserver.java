package io.leaf.server.ordering;

import com.google.common.base.Ticker;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;

/**
 * Passes an owner's answers on only while its term may issue: an ID taken near the end of a lease
 * (a load that finished late) is dropped, a gap, and the call fails UNAVAILABLE instead.
 */
final class GuardedObserver<T> extends DelegatingObserver<T, T> {

  private final Route route;
  private final Ticker ticker;
  private final String bizTag;
  private boolean failed;

  GuardedObserver(ServerCallStreamObserver<T> out, Route route, Ticker ticker, String bizTag) {
    super(out);
    this.route = route;
    this.ticker = ticker;
    this.bizTag = bizTag;
  }

  @Override
  public void onNext(T value) {
    if (failed) {
      return;
    }
    if (!route.ownership().mayIssue(ticker.read(), route.term())) {
      failed = true;
      out.onError(
          Status.UNAVAILABLE
              .withDescription(
                  "tag "
                      + bizTag
                      + " is STRICT and this"
                      + " server's owner lease ended before the answer could leave; retry")
              .asRuntimeException());
      return;
    }
    out.onNext(value);
  }

  @Override
  public void onError(Throwable t) {
    if (!failed) {
      failed = true;
      out.onError(t);
    }
  }

  @Override
  public void onCompleted() {
    if (!failed) {
      out.onCompleted();
    }
  }
}
