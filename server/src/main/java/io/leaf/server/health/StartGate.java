package io.leaf.server.health;

import com.google.common.util.concurrent.MoreExecutors;
import io.grpc.Context;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Holds the calls that arrive before the server's start-up checks have run, and lets each go on
 * once they have: a call is never refused, nor run against a half-started server, for being early;
 * it waits within its own deadline, holding no thread.
 */
public final class StartGate implements ServerInterceptor {

  /*
   * A held call gets a listener of its own and its handler is started only when the gate opens,
   * from the thread that opens it, in the call's context. Until the handler starts, it has
   * requested no message, so the transport delivers none: what can arrive meanwhile is a cancel
   * (the client gave up, or its deadline passed: the client sees its own status) or readiness.
   * Every event and the start run on one sequential executor per call, so the handler sees them
   * in order and one at a time, as the transport would deliver them.
   */

  private final CompletableFuture<Void> open = new CompletableFuture<>();

  /** The start-up checks have run: held calls go on, later ones pass at once. */
  public void open() {
    open.complete(null);
  }

  /** The server stops before it started: held calls end UNAVAILABLE with {@code why}. */
  public void close(String why) {
    open.completeExceptionally(new IllegalStateException(why));
  }

  /** Whether calls pass at once. */
  public boolean isOpen() {
    return open.isDone() && !open.isCompletedExceptionally();
  }

  @Override
  public <Q, A> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
    if (isOpen()) {
      return next.startCall(call, headers);
    }
    Held<Q> held = new Held<>(Context.current());
    open.whenComplete(
        (ignored, failure) ->
            held.start(
                () -> {
                  if (failure == null) {
                    return next.startCall(call, headers);
                  }
                  call.close(
                      Status.UNAVAILABLE.withDescription(failure.getMessage()), new Metadata());
                  return null;
                }));
    return held;
  }

  /** The listener of a held call: its events wait, in order, for the handler to start. */
  private static final class Held<Q> extends ForwardingServerCallListener<Q> {

    private final Context context;
    private final Executor serial =
        MoreExecutors.newSequentialExecutor(MoreExecutors.directExecutor());

    /** Set on the serial executor only. */
    private ServerCall.Listener<Q> handler;

    private boolean cancelled;
    private boolean readyMissed;

    Held(Context context) {
      this.context = context;
    }

    void start(java.util.function.Supplier<ServerCall.Listener<Q>> starter) {
      run(
          () -> {
            if (cancelled) {
              return; // the client gave up while held: nothing to start
            }
            ServerCall.Listener<Q> started = starter.get();
            handler = started != null ? started : new ServerCall.Listener<>() {};
            if (readyMissed) {
              handler.onReady();
            }
          });
    }

    private void run(Runnable event) {
      serial.execute(() -> context.run(event));
    }

    @Override
    protected ServerCall.Listener<Q> delegate() {
      return handler;
    }

    @Override
    public void onMessage(Q message) {
      run(
          () -> {
            if (handler != null) {
              handler.onMessage(message);
            }
          });
    }

    @Override
    public void onHalfClose() {
      run(
          () -> {
            if (handler != null) {
              handler.onHalfClose();
            }
          });
    }

    @Override
    public void onCancel() {
      run(
          () -> {
            cancelled = true;
            if (handler != null) {
              handler.onCancel();
            }
          });
    }

    @Override
    public void onComplete() {
      run(
          () -> {
            if (handler != null) {
              handler.onComplete();
            }
          });
    }

    @Override
    public void onReady() {
      run(
          () -> {
            if (handler != null) {
              handler.onReady();
            } else {
              readyMissed = true;
            }
          });
    }
  }
}
