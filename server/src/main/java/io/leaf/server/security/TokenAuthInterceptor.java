package io.leaf.server.security;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.SnowflakeServiceGrpc;
import java.util.Set;

/**
 * Requires {@code authorization: Bearer <token>} on LeafService and SnowflakeService RPCs: the
 * admin token on CreateTag, UpdateStep and SetFormat; the client token or the admin token on every other
 * such RPC when a client token is set, none otherwise. Health and reflection stay open. A call without a
 * bearer token ends UNAUTHENTICATED, one whose token does not grant the RPC PERMISSION_DENIED.
 *
 * <p>The rule and the constant-time comparison are {@link TokenCheck}'s; neither the tokens nor
 * what a caller sent is ever logged or put in a status.
 *
 * <p>Cost per call: a method-name lookup; a digest only on RPCs that need a token. Thread-safe.
 */
public final class TokenAuthInterceptor implements ServerInterceptor {

  static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final Set<String> ADMIN_METHODS = Set.of(
      LeafServiceGrpc.getCreateTagMethod().getFullMethodName(),
      LeafServiceGrpc.getUpdateStepMethod().getFullMethodName(),
      LeafServiceGrpc.getSetFormatMethod().getFullMethodName());
  private static final String PARSE_METHOD =
      LeafServiceGrpc.getParseFormattedIdMethod().getFullMethodName();

  private final TokenCheck tokens;

  /**
   * @param adminToken required by CreateTag and UpdateStep
   * @param clientToken required by the other LeafService RPCs; null leaves them open
   */
  public TokenAuthInterceptor(String adminToken, String clientToken) {
    this.tokens = new TokenCheck(adminToken, clientToken);
  }

  @Override
  public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
      ServerCallHandler<Q, A> next) {
    MethodDescriptor<Q, A> method = call.getMethodDescriptor();
    if (!LeafServiceGrpc.SERVICE_NAME.equals(method.getServiceName())
        && !SnowflakeServiceGrpc.SERVICE_NAME.equals(method.getServiceName())) {
      return next.startCall(call, headers);
    }
    boolean adminOnly = ADMIN_METHODS.contains(method.getFullMethodName());
    if (PARSE_METHOD.equals(method.getFullMethodName())) {
      // Anyone allowed to call it may parse; only the admin token reveals an opaque sequence.
      Context ctx = Context.current().withValue(CallerRights.MAY_REVEAL_OPAQUE,
          tokens.check(headers.get(AUTHORIZATION), true) == TokenCheck.Verdict.GRANTED);
      if (tokens.clientCallsOpen()
          || tokens.check(headers.get(AUTHORIZATION), false) == TokenCheck.Verdict.GRANTED) {
        return Contexts.interceptCall(ctx, call, headers, next);
      }
    }
    if (!adminOnly && tokens.clientCallsOpen()) {
      return next.startCall(call, headers);
    }
    return switch (tokens.check(headers.get(AUTHORIZATION), adminOnly)) {
      case GRANTED -> next.startCall(call, headers);
      case MISSING -> refuse(call, Status.UNAUTHENTICATED.withDescription(
          method.getBareMethodName() + " needs the header 'authorization: Bearer <token>'"));
      case DENIED -> refuse(call, Status.PERMISSION_DENIED.withDescription("the bearer token does"
          + " not grant " + method.getBareMethodName()
          + (adminOnly ? " (it needs the admin token)" : "")));
    };
  }

  private static <Q, A> ServerCall.Listener<Q> refuse(ServerCall<Q, A> call, Status status) {
    call.close(status, new Metadata());
    return new ServerCall.Listener<>() { };
  }
}
