package io.leaf.server.ordering;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;

/**
 * Marks a call another server forwarded ({@code leaf-forwarded} header) so it is never forwarded
 * again, and keeps the caller's {@code authorization} header for a call this server forwards.
 */
final class ForwardedMark implements ServerInterceptor {

  static final Metadata.Key<String> HEADER =
      Metadata.Key.of("leaf-forwarded", Metadata.ASCII_STRING_MARSHALLER);
  static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  static final Context.Key<Boolean> FORWARDED = Context.key("leaf-forwarded");
  static final Context.Key<String> CALLER_AUTHORIZATION = Context.key("leaf-authorization");

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    Context ctx =
        Context.current()
            .withValues(
                FORWARDED,
                headers.containsKey(HEADER),
                CALLER_AUTHORIZATION,
                headers.get(AUTHORIZATION));
    return Contexts.interceptCall(ctx, call, headers, next);
  }

  /** Whether the current call came from another server. */
  static boolean forwarded() {
    return Boolean.TRUE.equals(FORWARDED.get());
  }
}
