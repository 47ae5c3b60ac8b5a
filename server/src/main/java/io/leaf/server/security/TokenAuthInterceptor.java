package io.leaf.server.security;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.ListTagsResponse;
import io.leaf.v1.SnowflakeServiceGrpc;

/**
 * Applies {@link TokenAccess} to LeafService and SnowflakeService RPCs by {@link CallRules}, before
 * the handler starts; health and reflection stay open.
 *
 * <p>The {@code authorization: Bearer <token>} header decides who calls and whether its role grants
 * the RPC; for RPCs that name a tag or take IDs, the first request message decides the scope and
 * the rate, and the handler starts only if both allow it. Refusals: UNAUTHENTICATED (no token),
 * PERMISSION_DENIED (unknown token, role too low, tag out of scope, naming the role or the tag),
 * RESOURCE_EXHAUSTED (over the rate, naming the token and its limit, with a {@value
 * #RETRY_AFTER_MS} trailer).
 *
 * <p>ListTags answers are filtered to the caller's scope; ParseFormattedId reveals opaque sequences
 * to admin tokens only ({@link CallerRights}). Neither a token nor a digest is ever logged or put
 * in a status.
 *
 * <p>Cost per call: a method lookup, one SHA-256 of the token, a map lookup; for tag RPCs a scope
 * match and one compare-and-set of the token's bucket. Thread-safe.
 */
public final class TokenAuthInterceptor implements ServerInterceptor {

  static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  /** The trailer of a refusal over the rate: milliseconds until a retry may succeed. */
  public static final String RETRY_AFTER_MS = "retry-after-ms";

  static final Metadata.Key<String> RETRY_AFTER =
      Metadata.Key.of(RETRY_AFTER_MS, Metadata.ASCII_STRING_MARSHALLER);

  private final TokenAccess access;

  /**
   * The two-token special case.
   *
   * @param adminToken grants every RPC
   * @param clientToken grants every RPC but the admin ones; null leaves those open
   */
  public TokenAuthInterceptor(String adminToken, String clientToken) {
    this(
        new TokenAccess(
            constant(TokenRegistry.ofFlags(adminToken, clientToken, TokenMeters.NONE))));
  }

  public TokenAuthInterceptor(TokenAccess access) {
    this.access = access;
  }

  private static java.util.function.Supplier<TokenRegistry> constant(TokenRegistry registry) {
    return () -> registry;
  }

  @Override
  public <Q, A> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
    MethodDescriptor<Q, A> method = call.getMethodDescriptor();
    if (!LeafServiceGrpc.SERVICE_NAME.equals(method.getServiceName())
        && !SnowflakeServiceGrpc.SERVICE_NAME.equals(method.getServiceName())) {
      return next.startCall(call, headers);
    }
    CallRules.Rule rule = CallRules.of(method);
    TokenAccess.Admission admission =
        access.admit(headers.get(AUTHORIZATION), rule.role(), method.getBareMethodName());
    if (admission.refusal() != null) {
      refuse(call, admission.refusal());
      return new ServerCall.Listener<>() {};
    }
    Caller caller = admission.caller();
    ServerCall<Q, A> served =
        rule.listsTags() && !caller.scope().all() ? new ScopedListing<>(call, caller) : call;
    Context context =
        rule.revealsOpaque()
            ? Context.current()
                .withValue(CallerRights.MAY_REVEAL_OPAQUE, caller.role() == Role.ADMIN)
            : null;
    if (!rule.readsRequest()) {
      return start(served, headers, next, context);
    }
    return new FirstRequest<>(served, headers, next, context, caller, rule);
  }

  private static <Q, A> ServerCall.Listener<Q> start(
      ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next, Context context) {
    return context == null
        ? next.startCall(call, headers)
        : Contexts.interceptCall(context, call, headers, next);
  }

  static void refuse(ServerCall<?, ?> call, TokenAccess.Refusal refusal) {
    Metadata trailers = new Metadata();
    if (refusal.retryAfterNanos() > 0) {
      trailers.put(RETRY_AFTER, Long.toString(refusal.retryAfterMillis()));
    }
    call.close(
        Status.fromCode(Status.Code.valueOf(refusal.kind().name()))
            .withDescription(refusal.reason()),
        trailers);
  }

  /**
   * Holds the handler back until the first request message is checked: asks for that message,
   * starts the handler when the caller may take it, answers the refusal otherwise. Events before
   * the message are kept (readiness) or dropped with the call (a cancel). Runs on the call's
   * serialized listener executor, so it needs no lock.
   */
  private final class FirstRequest<Q, A> extends ServerCall.Listener<Q> {

    private final ServerCall<Q, A> call;
    private final Metadata headers;
    private final ServerCallHandler<Q, A> next;
    private final Context context;
    private final Caller caller;
    private final CallRules.Rule rule;
    private ServerCall.Listener<Q> handler;
    private boolean refused;
    private boolean ready;

    FirstRequest(
        ServerCall<Q, A> call,
        Metadata headers,
        ServerCallHandler<Q, A> next,
        Context context,
        Caller caller,
        CallRules.Rule rule) {
      this.call = call;
      this.headers = headers;
      this.next = next;
      this.context = context;
      this.caller = caller;
      this.rule = rule;
      call.request(1);
    }

    @Override
    public void onMessage(Q message) {
      if (refused) {
        return;
      }
      if (handler == null) {
        TokenAccess.Refusal refusal =
            access.allow(caller, rule.tagOf(message), rule.idsOf(message));
        if (refusal != null) {
          refused = true;
          refuse(call, refusal);
          return;
        }
        startHandler();
      }
      handler.onMessage(message);
    }

    @Override
    public void onHalfClose() {
      if (refused) {
        return;
      }
      if (handler == null) {
        // No message at all: the handler answers that as it always does.
        startHandler();
      }
      handler.onHalfClose();
    }

    @Override
    public void onReady() {
      if (handler == null) {
        ready = true;
      } else {
        handler.onReady();
      }
    }

    @Override
    public void onCancel() {
      if (handler != null) {
        handler.onCancel();
      }
    }

    @Override
    public void onComplete() {
      if (handler != null) {
        handler.onComplete();
      }
    }

    private void startHandler() {
      handler = start(call, headers, next, context);
      if (ready) {
        handler.onReady();
      }
    }
  }

  /** ListTags of a token of some tags: each page keeps only the tags in its scope. */
  private static final class ScopedListing<Q, A> extends SimpleForwardingServerCall<Q, A> {

    private final Caller caller;

    ScopedListing(ServerCall<Q, A> call, Caller caller) {
      super(call);
      this.caller = caller;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void sendMessage(A message) {
      if (message instanceof ListTagsResponse page) {
        ListTagsResponse.Builder kept = page.toBuilder().clearTags();
        page.getTagsList().stream()
            .filter(t -> caller.allows(t.getBizTag()))
            .forEach(kept::addTags);
        message = (A) kept.build();
      }
      super.sendMessage(message);
    }
  }
}
