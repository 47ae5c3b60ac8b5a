package io.leaf.server.ordering;

import io.grpc.stub.ServerCallStreamObserver;

/**
 * A call's observer for work that starts after the handler returned (once the ordering was read):
 * grpc-java takes cancel and ready handlers only during the handler, so this one installs its own
 * then and passes each event to whatever handler the later work sets.
 */
final class LateObserver<T> extends DelegatingObserver<T, T> {

  private volatile Runnable onCancel;
  private volatile Runnable onReady;

  /** Made during the handler, before it returns. */
  LateObserver(ServerCallStreamObserver<T> out) {
    super(out);
    out.setOnCancelHandler(
        () -> {
          Runnable h = onCancel;
          if (h != null) {
            h.run();
          }
        });
    out.setOnReadyHandler(
        () -> {
          Runnable h = onReady;
          if (h != null) {
            h.run();
          }
        });
  }

  @Override
  public void setOnCancelHandler(Runnable handler) {
    onCancel = handler;
    if (out.isCancelled()) {
      handler.run();
    }
  }

  @Override
  public void setOnReadyHandler(Runnable handler) {
    onReady = handler;
    if (out.isReady()) {
      handler.run();
    }
  }

  @Override
  public void onNext(T value) {
    out.onNext(value);
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
