package io.leaf.server.ordering;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Names a STRICT tag's owner ({@code HOST:PORT}, its {@code --advertise-address}) in the response
 * headers of each call routed to it, here or forwarded, as {@code leaf-owner}: a client may then
 * call the owner directly and save the hop.
 */
final class OwnerHeader implements ServerInterceptor {

  static final Metadata.Key<String> KEY =
      Metadata.Key.of("leaf-owner", Metadata.ASCII_STRING_MARSHALLER);

  private static final Context.Key<AtomicReference<String>> OWNER = Context.key("leaf-owner");

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    AtomicReference<String> owner = new AtomicReference<>();
    ServerCall<Q, R> naming =
        new SimpleForwardingServerCall<>(call) {
          @Override
          public void sendHeaders(Metadata responseHeaders) {
            String o = owner.get();
            if (o != null) {
              responseHeaders.put(KEY, o);
            }
            super.sendHeaders(responseHeaders);
          }
        };
    return Contexts.interceptCall(Context.current().withValue(OWNER, owner), naming, headers, next);
  }

  /**
   * Names the owner {@code route} goes to ({@code self} when it issues here) in the current call's
   * response headers, unless they have left; nothing outside a gRPC call (HTTP).
   */
  static void name(Route route, String self) {
    AtomicReference<String> owner = OWNER.get();
    if (owner == null) {
      return;
    }
    switch (route.kind()) {
      case ISSUE -> owner.set(self);
      case FORWARD -> owner.set(route.owner());
      default -> {
        // PER_SERVER and SCATTERED tags have no owner.
      }
    }
  }
}
