package io.leaf.server.health;

import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.health.v1.HealthGrpc;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Keeps the open {@code Health/Watch} streams so that shutdown can end them.
 *
 * <p>A Watch stream never ends by itself, and one left open would hold a stopping server for its
 * whole grace period.
 *
 * <p>Thread-safe. A tracked call's sends and its close are serialized on the call, since the health
 * service writes from whichever thread changes a status while shutdown closes from its own.
 */
final class HealthWatches implements ServerInterceptor {

  static final String LIMIT_FLAG = "--max-watches";

  private final Set<SerializedCall<?, ?>> open = ConcurrentHashMap.newKeySet();
  private final AtomicInteger count = new AtomicInteger();
  private final int max;
  private volatile boolean closing;

  /**
   * @param max Watch streams open at once; one more is refused with RESOURCE_EXHAUSTED
   */
  HealthWatches(int max) {
    this.max = max;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    if (!call.getMethodDescriptor()
        .getFullMethodName()
        .equals(HealthGrpc.getWatchMethod().getFullMethodName())) {
      return next.startCall(call, headers);
    }
    if (count.incrementAndGet() > max) {
      count.decrementAndGet();
      call.close(
          Status.RESOURCE_EXHAUSTED.withDescription(
              "too many Health/Watch streams open" + " (limit " + max + ", " + LIMIT_FLAG + ")"),
          new Metadata());
      return new ServerCall.Listener<>() {};
    }
    SerializedCall<Q, R> tracked = new SerializedCall<>(call);
    open.add(tracked);
    if (closing) {
      // Arrived while shutdown was closing the others.
      tracked.closeForShutdown();
    }
    return new SimpleForwardingServerCallListener<>(next.startCall(tracked, headers)) {
      @Override
      public void onCancel() {
        forget(tracked);
        super.onCancel();
      }

      @Override
      public void onComplete() {
        forget(tracked);
        super.onComplete();
      }
    };
  }

  /** Drops {@code call} from the open set, once, whichever of its endings comes first. */
  private void forget(SerializedCall<?, ?> call) {
    if (open.remove(call)) {
      count.decrementAndGet();
    }
  }

  /** Ends every open Watch stream with UNAVAILABLE; Watch calls that arrive later end at once. */
  void closeAll() {
    closing = true;
    for (SerializedCall<?, ?> call : open) {
      call.closeForShutdown();
    }
  }

  /**
   * A tracked Watch call that sends nothing once closed, its sends and close serialized, so
   * shutdown may close it from its own thread.
   */
  private final class SerializedCall<Q, R> extends SimpleForwardingServerCall<Q, R> {
    private boolean closed;

    SerializedCall(ServerCall<Q, R> delegate) {
      super(delegate);
    }

    @Override
    public synchronized void sendHeaders(Metadata headers) {
      if (!closed) {
        super.sendHeaders(headers);
      }
    }

    @Override
    public synchronized void sendMessage(R message) {
      if (!closed) {
        super.sendMessage(message);
      }
    }

    @Override
    public synchronized void close(Status status, Metadata trailers) {
      forget(this);
      if (!closed) {
        closed = true;
        super.close(status, trailers);
      }
    }

    void closeForShutdown() {
      close(Status.UNAVAILABLE.withDescription("server shutting down"), new Metadata());
    }
  }
}
