package io.leaf.server.ops;

import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.SnowflakeServiceGrpc;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Set;

/**
 * Requires {@code authorization: Bearer <token>} on LeafService and SnowflakeService RPCs: the
 * admin token on CreateTag and UpdateStep; the client token or the admin token on every other
 * such RPC when a client token is set, none otherwise. Health and reflection stay open. A call without a
 * bearer token ends UNAUTHENTICATED, one whose token does not grant the RPC PERMISSION_DENIED.
 *
 * <p>Tokens are kept and compared as SHA-256 digests with {@link MessageDigest#isEqual}, so the
 * time a comparison takes says nothing about the token, not even its length; neither the tokens
 * nor what a caller sent is ever logged or put in a status.
 *
 * <p>Cost per call: a method-name lookup; a digest only on RPCs that need a token. Thread-safe.
 */
public final class TokenAuthInterceptor implements ServerInterceptor {

  static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final String BEARER = "Bearer ";
  private static final Set<String> ADMIN_METHODS = Set.of(
      LeafServiceGrpc.getCreateTagMethod().getFullMethodName(),
      LeafServiceGrpc.getUpdateStepMethod().getFullMethodName());

  private final byte[] admin;
  private final byte[] client;

  /**
   * @param adminToken required by CreateTag and UpdateStep
   * @param clientToken required by the other LeafService RPCs; null leaves them open
   */
  public TokenAuthInterceptor(String adminToken, String clientToken) {
    if (adminToken == null || adminToken.isEmpty()) {
      throw new IllegalArgumentException("adminToken must not be empty");
    }
    this.admin = digest(adminToken);
    this.client = clientToken == null ? null : digest(clientToken);
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
    if (!adminOnly && client == null) {
      return next.startCall(call, headers);
    }
    String value = headers.get(AUTHORIZATION);
    if (value == null || !value.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      return refuse(call, Status.UNAUTHENTICATED.withDescription(method.getBareMethodName()
          + " needs the header 'authorization: Bearer <token>'"));
    }
    byte[] given = digest(value.substring(BEARER.length()).trim());
    // Both compared every time: which token matched must not show in the time taken either.
    boolean isAdmin = MessageDigest.isEqual(given, admin);
    boolean isClient = client != null && MessageDigest.isEqual(given, client);
    if (isAdmin || (isClient && !adminOnly)) {
      return next.startCall(call, headers);
    }
    return refuse(call, Status.PERMISSION_DENIED.withDescription("the bearer token does not grant "
        + method.getBareMethodName() + (adminOnly ? " (it needs the admin token)" : "")));
  }

  private static <Q, A> ServerCall.Listener<Q> refuse(ServerCall<Q, A> call, Status status) {
    call.close(status, new Metadata());
    return new ServerCall.Listener<>() { };
  }

  /**
   * One digest per transport thread: with --client-token every ID call is checked, and a
   * provider lookup per call would cost more than the ID itself.
   */
  private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  });

  private static byte[] digest(String token) {
    return SHA256.get().digest(token.getBytes(StandardCharsets.UTF_8));
  }
}
