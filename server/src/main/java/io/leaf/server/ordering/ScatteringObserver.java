package io.leaf.server.ordering;

import io.grpc.stub.ServerCallStreamObserver;
import java.util.function.UnaryOperator;

/**
 * Passes a SCATTERED tag's answers on with their IDs scattered ({@code scatter}); errors, the end
 * and flow control as they are.
 */
final class ScatteringObserver<T> extends DelegatingObserver<T, T> {

  private final UnaryOperator<T> scatter;

  ScatteringObserver(ServerCallStreamObserver<T> out, UnaryOperator<T> scatter) {
    super(out);
    this.scatter = scatter;
  }

  @Override
  public void onNext(T value) {
    out.onNext(scatter.apply(value));
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
