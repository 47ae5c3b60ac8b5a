package io.leaf.server.ordering;

import io.grpc.stub.ServerCallStreamObserver;

/** A server call's observer passing everything but its messages and ending to {@code out}. */
abstract class DelegatingObserver<T, U> extends ServerCallStreamObserver<T> {

  final ServerCallStreamObserver<U> out;

  DelegatingObserver(ServerCallStreamObserver<U> out) {
    this.out = out;
  }

  @Override
  public boolean isCancelled() {
    return out.isCancelled();
  }

  @Override
  public void setOnCancelHandler(Runnable handler) {
    out.setOnCancelHandler(handler);
  }

  @Override
  public void setCompression(String compression) {
    out.setCompression(compression);
  }

  @Override
  public boolean isReady() {
    return out.isReady();
  }

  @Override
  public void setOnReadyHandler(Runnable handler) {
    out.setOnReadyHandler(handler);
  }

  @Override
  public void disableAutoInboundFlowControl() {
    out.disableAutoInboundFlowControl();
  }

  @Override
  public void request(int count) {
    out.request(count);
  }

  @Override
  public void setMessageCompression(boolean enable) {
    out.setMessageCompression(enable);
  }

  @Override
  public void setOnCloseHandler(Runnable handler) {
    out.setOnCloseHandler(handler);
  }

  @Override
  public void disableAutoRequest() {
    out.disableAutoRequest();
  }
}
